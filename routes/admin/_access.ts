/**
 * Who may use an admin page, declared by the page (`export const access = allow.form(...)`)
 * and decided in one place: {@linkcode guard} loads the session, the workspace or form and
 * the user's role, refuses before the page's handler runs, and hands them to the handler in
 * its context (docs/decisions/admin-page-access.md).
 * @module
 */
import type { ComponentType } from "preact";
import type { Context, MiddlewareHandler } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { getForm } from "@/lib/forms/forms.ts";
import type { AppEnv } from "@/lib/http/http.ts";
import { mediaType } from "@/lib/http/body.ts";
import { atLeast, isRole, roleIn } from "@/lib/admin/members.ts";
import { csrfMatches, readSessionToken } from "@/lib/admin/sessions.ts";
import type { Define, Handlers } from "@/lib/ui/define.ts";
import type { Role } from "@/lib/schemas.ts";
import { getWorkspace } from "@/lib/workspaces/workspaces.ts";
import {
  type AdminState,
  canAccess,
  defineOver,
  type FormContext,
  type PageContext,
  type PageProps,
  RoleRefused,
  roleRefused,
  type SignedInContext,
  type WorkspaceContext,
} from "./_page.ts";
import { loadState, refererPage, safeAdminPath } from "./_session.ts";

/** The methods an admin page answers. */
export type Method = "GET" | "POST";
/** The least workspace role of each method a page answers; a method not named is refused. */
export type Roles = { [M in Method]?: Role };
/** Stricter roles for a view chosen by a query parameter (`"confirm=delete": "admin"`). */
export type Views = Record<`${string}=${string}`, Role>;

/** Options any access takes: `uploads` lets its POST carry a file (multipart, 12 MiB). */
interface Options {
  uploads?: boolean;
}
/** Reachable by anyone (sign-in, password reset, invitations); the state may be null. */
export interface PublicAccess extends Options {
  kind: "public";
}
/** Any signed-in user (their account, the forms list, sign-out). */
export interface SignedInAccess extends Options {
  kind: "signed_in";
}
/** Instance owners only; anyone else is told "Only an instance owner can <refusal>." */
export interface InstanceOwnerAccess extends Options {
  kind: "instance_owner";
  refusal: string;
}
/** The current workspace, with at least the role of the method (404 without a workspace). */
export interface WorkspaceAccess extends Options {
  kind: "workspace";
  roles: Roles;
  views?: Views;
}
/** The `:id` form (404 if missing or foreign), with at least the method's role in its workspace. */
export interface FormAccess extends Options {
  kind: "form";
  roles: Roles;
  views?: Views;
}
/** A page's declared access. */
export type Access =
  | PublicAccess
  | SignedInAccess
  | InstanceOwnerAccess
  | WorkspaceAccess
  | FormAccess;

/** The builders of a page's `access`. */
export const allow = {
  public: (o: Options = {}): PublicAccess => ({ kind: "public", ...o }),
  signedIn: (o: Options = {}): SignedInAccess => ({ kind: "signed_in", ...o }),
  instanceOwner: (refusal: string, o: Options = {}): InstanceOwnerAccess => ({
    kind: "instance_owner",
    refusal,
    ...o,
  }),
  workspace: (roles: Roles, o: Options & { views?: Views } = {}): WorkspaceAccess => ({
    kind: "workspace",
    roles,
    ...o,
  }),
  form: (roles: Roles, o: Options & { views?: Views } = {}): FormAccess => ({
    kind: "form",
    roles,
    ...o,
  }),
};

/** The context a page of access `A` gets. */
export type ContextOf<A extends Access> = A extends FormAccess ? FormContext
  : A extends WorkspaceAccess ? WorkspaceContext
  : A extends PublicAccess ? PageContext
  : SignedInContext;

/** The `define` of a page with access `A`: its handlers get {@linkcode ContextOf}<A>. */
export function defineFor<A extends Access>(_access: A): Define<ContextOf<A>, PageProps> {
  return defineOver<ContextOf<A>>();
}

/** A page module as written: its access, handlers over that access's context, component. */
export interface AdminPage<A extends Access, T> {
  access: A;
  handler: Handlers<ContextOf<A>, T>;
  default?: ComponentType<PageProps & { data: T }>;
}

/** A page as the router mounts it (routes/admin/_routes.gen.ts lists them). */
export interface PageEntry {
  /** Its URL under /admin, in Hono's syntax (`/forms/:id`). */
  pattern: string;
  /** Its file under routes/admin/. */
  file: string;
  /** Checked by {@linkcode checkPage} before it is mounted. */
  access: Access | undefined;
  /** Given the context its access builds (the guard builds it). */
  handler: Handlers<PageContext, unknown>;
  component?: ComponentType<PageProps & { data: unknown }>;
}

/** A manifest entry: type-checks the module's handlers against its access's context. */
export function route<A extends Access, T>(
  pattern: string,
  file: string,
  mod: AdminPage<A, T>,
): PageEntry {
  return {
    pattern,
    file,
    access: mod.access,
    // Sound: the guard gives each handler the context of the access it was checked against.
    handler: mod.handler as unknown as Handlers<PageContext, unknown>,
    component: mod.default as ComponentType<PageProps & { data: unknown }> | undefined,
  };
}

/**
 * Throws unless the page declares a well-formed access: a known kind, and for workspace and
 * form pages a role for exactly the methods it answers (nothing is granted by default).
 */
export function checkPage(entry: PageEntry): asserts entry is PageEntry & { access: Access } {
  const fail = (why: string) => {
    throw new Error(`routes/admin/${entry.file} cannot be mounted: ${why}`);
  };
  const access: Partial<Access> | undefined = entry.access;
  if (!access || typeof access !== "object") {
    return fail("it declares no access (export const access = allow.<kind>(...))");
  }
  const methods = (["GET", "POST"] as const).filter((m) => entry.handler[m]);
  if (methods.length === 0) fail("it answers no method");
  if (access.kind === "instance_owner" && !access.refusal) fail("an instance page says why not");
  if (access.kind === "workspace" || access.kind === "form") {
    const { roles = {}, views = {} } = access;
    for (const m of methods) {
      if (!isRole(roles[m] ?? "")) fail(`its access names no role for ${m}`);
    }
    for (const m of Object.keys(roles)) {
      if (!methods.includes(m as Method)) fail(`its access names a role for ${m}, never answered`);
    }
    for (const [view, role] of Object.entries(views)) {
      if (!isRole(role) || !/^\w+=\w+$/.test(view)) {
        fail(`its view ${view} is not name=value: role`);
      }
    }
    if (access.kind === "form" && !entry.pattern.includes("/:id")) fail("a form page needs :id");
  } else if (!["public", "signed_in", "instance_owner"].includes(access.kind ?? "")) {
    fail(`its access kind ${access.kind} is unknown`);
  }
}

/** The admin sub-app's variables: the guard's context for the page's handler (set on every page). */
export type AdminEnv = {
  Variables: AppEnv["Variables"] & { page?: PageContext };
  Bindings: AppEnv["Bindings"];
};

/**
 * The access middleware of one page and method: a session (else the sign-in redirect), the
 * posted form with its CSRF token, then the access (instance owner, workspace or form with
 * the role). Sets `page` to the handler's context, or throws the refusal.
 */
export function guard(
  deps: Deps,
  entry: PageEntry & { access: Access },
  method: Method,
): MiddlewareHandler<AdminEnv> {
  const { access } = entry;
  return async (c, next) => {
    const url = new URL(c.req.url);
    const state = await loadState(deps, readSessionToken(deps.config, c.req.header("cookie")));
    if (!state && access.kind !== "public") {
      // A POST-only path would be a 404 after sign-in: return to the page the form was on.
      const back = method === "GET" ? url.pathname + url.search : refererPage(deps, c);
      return c.redirect(
        back ? `/admin/login?next=${encodeURIComponent(back)}` : "/admin/login",
        303,
      );
    }
    const body = method === "POST" ? await readForm(c, !!access.uploads) : new URLSearchParams();
    if (method === "POST" && state && !csrfMatches(state.session, body.get("_csrf"))) {
      throw new AppError(
        403,
        "forbidden",
        "This form expired or came from another site. Reload the page and retry.",
      );
    }
    const ctx: PageContext = {
      deps,
      c,
      url,
      params: c.req.param() as Record<string, string>,
      state,
      body,
      redirect: (to, notice) => {
        const sep = to.includes("?") ? "&" : "?";
        return c.redirect(
          safeAdminPath(notice ? `${to}${sep}notice=${notice}` : to, "/admin"),
          303,
        );
      },
    };
    c.set("page", state ? await admit(deps, access, method, { ...ctx, state }) : ctx);
    await next();
  };
}

/** The context of a signed-in request that its page's access admits; else the refusal. */
async function admit(
  deps: Deps,
  access: Access,
  method: Method,
  ctx: SignedInContext,
): Promise<PageContext> {
  const { state } = ctx;
  if (access.kind === "instance_owner" && !state.user.owner) {
    throw new RoleRefused(`Only an instance owner can ${access.refusal}.`);
  }
  if (access.kind === "workspace") {
    const workspace = state.workspace;
    if (!workspace) throw errors.notFound("No workspace yet. An instance owner can create one.");
    const role = requireRole(state, workspace.id, need(access, method, ctx));
    const admitted: WorkspaceContext = { ...ctx, workspace, role };
    return admitted;
  }
  if (access.kind === "form") {
    const form = await getForm(deps, ctx.params.id ?? "");
    if (!form || !canAccess(state, form.workspace_id)) throw errors.formNotFound();
    const role = requireRole(state, form.workspace_id, need(access, method, ctx));
    const workspace = state.workspaces.find((w) => w.id === form.workspace_id) ??
      await getWorkspace(deps, form.workspace_id);
    if (!workspace) throw errors.formNotFound();
    const admitted: FormContext = { ...ctx, workspace, form, role };
    return admitted;
  }
  return ctx;
}

/** The least role of this request: its method's, or a stricter view's it asks for. */
function need(access: WorkspaceAccess | FormAccess, method: Method, ctx: PageContext): Role {
  let least = access.roles[method]!;
  for (const [view, role] of Object.entries(access.views ?? {})) {
    const [name, value] = view.split("=");
    if (ctx.url.searchParams.get(name) === value && !atLeast(least, role)) least = role;
  }
  return least;
}

/** The user's role in `workspaceId` when it meets `need`; else the refusal (403). */
function requireRole(state: AdminState, workspaceId: string, need: Role): Role {
  const role = roleIn(state.user, workspaceId);
  if (role === null || !atLeast(role, need)) throw roleRefused(role, need);
  return role;
}

/**
 * The posted form (the body cap is Hono's bodyLimit in routes/admin/mod.ts). A page that
 * takes `uploads` also reads multipart: a file's text is the field's value, its name
 * `<field>_name`.
 */
async function readForm(c: Context<AppEnv>, uploads: boolean): Promise<URLSearchParams> {
  const type = mediaType(c.req.header("content-type"));
  if (uploads && type === "multipart/form-data") {
    const out = new URLSearchParams();
    try {
      for (const [name, v] of await c.req.formData()) {
        if (typeof v === "string") out.append(name, v);
        else {
          out.append(name, await v.text());
          out.append(`${name}_name`, v.name);
        }
      }
    } catch {
      throw errors.badRequest("The upload could not be read.");
    }
    return out;
  }
  if (type !== "application/x-www-form-urlencoded") {
    throw new AppError(415, "unsupported_media_type", "Send the form as a normal HTML form.");
  }
  try {
    return new URLSearchParams(await c.req.text());
  } catch {
    throw errors.badRequest("The request body could not be read.");
  }
}
