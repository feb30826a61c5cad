/**
 * The admin sub-app: mounts each page module (`define.handlers` + `define.page`) onto Hono
 * behind the admin's middleware (public-host refusal, headers, CSRF, body cap; see
 * docs/decisions/http-middleware.md).
 * @module
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { Fragment, h } from "preact";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { type AppEnv, noStore, notFound, strictPageHeaders } from "@/lib/http/http.ts";
import { MAX_BODY_BYTES, mediaType } from "@/lib/http/body.ts";
import { paramGuard } from "@/lib/http/validation.ts";
import { isPageResult } from "@/lib/ui/define.ts";
import { renderDocument } from "@/lib/ui/document.tsx";
import { csrfMatches, readSessionToken } from "@/lib/admin/sessions.ts";
import { Layout } from "./_layout.tsx";
import { type AdminPageModule, type PageContext, RoleRefused } from "./_page.ts";
import { loadState, refererPage, safeAdminPath } from "./_session.ts";
import { ErrorPage } from "./_error.tsx";
import * as login from "./login.tsx";
import * as logout from "./logout.ts";
import * as home from "./index.ts";
import * as sw from "./switch.ts";
import * as workspaces from "./workspaces.tsx";
import * as forms from "@/routes/admin/forms/index.tsx";
import * as formNew from "@/routes/admin/forms/new.tsx";
import * as formShow from "@/routes/admin/forms/[id]/index.tsx";
import * as formEdit from "@/routes/admin/forms/[id]/edit.tsx";
import * as formDelete from "@/routes/admin/forms/[id]/delete.tsx";
import * as formIntegrations from "@/routes/admin/forms/[id]/integrations.tsx";
import * as formDrafts from "@/routes/admin/forms/[id]/drafts.tsx";
import * as subs from "@/routes/admin/forms/[id]/submissions/index.tsx";
import * as subShow from "@/routes/admin/forms/[id]/submissions/[sid].tsx";
import * as subExport from "@/routes/admin/forms/[id]/export.ts";
import * as subFile from "@/routes/admin/forms/[id]/file.ts";
import * as formImport from "@/routes/admin/forms/[id]/import.tsx";
import * as apiKeys from "@/routes/admin/keys/index.tsx";
import * as keyRevoke from "@/routes/admin/keys/[kid]/revoke.tsx";
import * as members from "./members.tsx";
import * as outbox from "./outbox.tsx";
import * as webhooks from "@/routes/admin/webhooks/index.tsx";
import * as webhookShow from "@/routes/admin/webhooks/[wid].tsx";
import * as account from "./account.tsx";
import * as invite from "@/routes/admin/invite/[token].tsx";
import * as resetRequest from "./reset.tsx";
import * as resetToken from "@/routes/admin/reset/[token].tsx";
import * as privacy from "./privacy.tsx";
import * as auditLog from "./audit.tsx";
import * as system from "./system.tsx";
import type { Role } from "@/lib/schemas.ts";
import { logger } from "@/lib/observe/log.ts";

/**
 * Who may use a page. A workspace page states the least role a method needs where it differs
 * from the default (GET viewer, POST admin); the page enforces it when it loads its workspace
 * or form (routes/admin/_page.ts; roles in docs/decisions/team-roles.md). An instance page
 * (`instanceOwner`) admits instance owners only, checked here before its handler runs; anyone
 * else is refused "Only an instance owner can <instanceOwner>."
 */
type Access = { GET?: Role; POST?: Role } | { instanceOwner: string };

/** A page module bound to the router: its data type is closed over by {@linkcode mount}. */
type Mounted = { [M in "GET" | "POST"]?: (deps: Deps, c: Context<AppEnv>) => Promise<Response> };

/** Path (under /admin, Hono's `:param` syntax) to page. */
const PAGES: [string, Mounted][] = [
  ["/", mount(home)],
  ["/login", mount(login)],
  ["/logout", mount(logout, { POST: "viewer" })],
  ["/switch", mount(sw, { POST: "viewer" })],
  ["/workspaces", mount(workspaces, { instanceOwner: "manage workspaces" })],
  ["/forms", mount(forms)],
  ["/forms/new", mount(formNew, { GET: "admin" })],
  ["/forms/:id", mount(formShow)],
  ["/forms/:id/edit", mount(formEdit, { GET: "admin" })],
  ["/forms/:id/delete", mount(formDelete, { GET: "admin" })],
  ["/forms/:id/integrations", mount(formIntegrations, { GET: "admin" })],
  ["/forms/:id/drafts", mount(formDrafts, { POST: "admin" })],
  ["/forms/:id/submissions", mount(subs)],
  ["/forms/:id/submissions/:sid", mount(subShow)],
  ["/forms/:id/export.csv", mount(subExport, { GET: "admin" })],
  ["/forms/:id/export.json", mount(subExport, { GET: "admin" })],
  ["/forms/:id/file", mount(subFile)],
  ["/forms/:id/import", mount(formImport, { GET: "admin" })],
  ["/keys", mount(apiKeys, { GET: "admin" })],
  ["/keys/:kid/revoke", mount(keyRevoke, { GET: "admin" })],
  ["/members", mount(members, { POST: "owner" })],
  ["/outbox", mount(outbox)],
  ["/webhooks", mount(webhooks, { GET: "admin" })],
  ["/webhooks/:wid", mount(webhookShow, { GET: "admin" })],
  ["/account", mount(account, { POST: "viewer" })],
  ["/invite/:token", mount(invite)],
  ["/reset", mount(resetRequest)],
  ["/reset/:token", mount(resetToken)],
  ["/privacy", mount(privacy, { GET: "admin" })],
  ["/audit", mount(auditLog, { GET: "admin" })],
  ["/system", mount(system, { instanceOwner: "see the system status" })],
];

/** Admin pages whose POST may carry a file (multipart), up to MAX_UPLOAD_BYTES. */
const UPLOAD_PATHS = [/^\/admin\/forms\/[^/]+\/import$/];
/** The body cap of an upload page (an import file, sent once more with the confirmation). */
const MAX_UPLOAD_BYTES = 12 * 1024 * 1024;

/** With a separate `PUBLIC_BASE_URL`, the admin does not exist on the public host. */
function notOnPublicHost(deps: Deps): MiddlewareHandler<AppEnv> {
  const admin = new URL(deps.config.baseUrl).host;
  const pub = new URL(deps.config.publicBaseUrl).host;
  return async (c, next) => {
    if (pub !== admin && new URL(c.req.url).host === pub) return notFound(c);
    await next();
  };
}

/**
 * Hono's CSRF check (Sec-Fetch-Site same-origin, or an Origin of ours) on every POST from a
 * browser; a client that sends neither header is no browser, and the session token still
 * applies. Refusals answer the admin's 403 page.
 */
function crossSiteGuard(deps: Deps): MiddlewareHandler<AppEnv> {
  const check = csrf({
    origin: (origin, c) =>
      origin === new URL(c.req.url).origin ||
      origin === new URL(deps.config.baseUrl).origin,
  });
  return async (c, next) => {
    if (c.req.header("origin") === undefined && c.req.header("sec-fetch-site") === undefined) {
      return await next();
    }
    try {
      await check(c, next);
    } catch (err) {
      if (!(err instanceof HTTPException) || err.status !== 403) throw err;
      throw new AppError(
        403,
        "forbidden",
        "Cross-site request blocked. Reload the page and retry.",
      );
    }
  };
}

/** The admin sub-app, mounted at `/admin`. */
export function adminRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", notOnPublicHost(deps));
  app.use("*", strictPageHeaders(deps.config));
  app.use("*", noStore());
  app.use("*", crossSiteGuard(deps));
  // A page that takes a file upload (its module's `uploads`) takes a larger body.
  app.on("POST", "*", (c, next) =>
    bodyLimit({
      maxSize: UPLOAD_PATHS.some((re) => re.test(c.req.path)) ? MAX_UPLOAD_BYTES : MAX_BODY_BYTES,
      onError: () => {
        throw errors.payloadTooLarge();
      },
    })(c, next));
  app.onError((err, c) => errorResponse(deps, c, err));
  // An id in a path that the service cannot have issued is the 404 page before any read.
  const ids = paramGuard((c) =>
    errorResponse(deps, c, new AppError(404, "not_found", "Page not found."))
  );
  for (const [path, page] of PAGES) {
    const { GET, POST } = page;
    if (GET) app.get(path, ids, (c) => GET(deps, c));
    if (POST) app.post(path, ids, (c) => POST(deps, c));
  }
  app.all("*", (c) => errorResponse(deps, c, new AppError(404, "not_found", "Page not found.")));
  return app;
}

/** Binds a page module's handlers to the router, rendering its component with their data. */
function mount<T>(mod: AdminPageModule<T>, access: Access = {}): Mounted {
  const bind = (method: "GET" | "POST") => {
    const handler = mod.handler[method];
    if (!handler) return undefined;
    const instance = "instanceOwner" in access ? access.instanceOwner : null;
    // An instance owner is an owner of every workspace.
    const need = "instanceOwner" in access
      ? "owner"
      : access[method] ?? (method === "GET" ? "viewer" : "admin");
    return async (deps: Deps, c: Context<AppEnv>): Promise<Response> => {
      const ctx = await context(deps, c, mod, method, need);
      if (ctx instanceof Response) return ctx;
      if (instance !== null && !ctx.state?.user.owner) {
        throw new RoleRefused(`Only an instance owner can ${instance}.`);
      }
      const result = await handler(ctx);
      if (!isPageResult(result)) return result;
      const csrf = ctx.state?.session.csrf ?? "";
      const props = { state: ctx.state, url: ctx.url, csrf };
      const body = mod.default ? h(mod.default, { ...props, data: result.data }) : null;
      const html = renderDocument({
        title: result.title ? `${result.title} · Formwell` : "Formwell",
        body: h(Fragment, null, h(Layout, { ...props, children: body })),
        bodyClass: "admin",
      });
      return c.html(html, (result.status ?? 200) as 200, result.headers);
    };
  };
  return { GET: bind("GET"), POST: bind("POST") };
}

/** The handler's context, or the sign-in redirect when a page needs a session. */
async function context<T>(
  deps: Deps,
  c: Context<AppEnv>,
  mod: AdminPageModule<T>,
  method: "GET" | "POST",
  need: Role,
): Promise<PageContext | Response> {
  const url = new URL(c.req.url);
  const state = await loadState(deps, readSessionToken(deps.config, c.req.header("cookie")));
  if (!state && !mod.isPublic) {
    // A POST-only path would be a 404 after sign-in: return to the page the form was on.
    const back = method === "GET" ? url.pathname + url.search : refererPage(deps, c);
    return c.redirect(back ? `/admin/login?next=${encodeURIComponent(back)}` : "/admin/login", 303);
  }
  const body = method === "POST" ? await readForm(c, !!mod.uploads) : new URLSearchParams();
  if (method === "POST" && state && !csrfMatches(state.session, body.get("_csrf"))) {
    throw new AppError(
      403,
      "forbidden",
      "This form expired or came from another site. Reload the page and retry.",
    );
  }
  return {
    deps,
    c,
    url,
    params: c.req.param(),
    state,
    body,
    need,
    redirect: (to, notice) => {
      const sep = to.includes("?") ? "&" : "?";
      return c.redirect(safeAdminPath(notice ? `${to}${sep}notice=${notice}` : to, "/admin"), 303);
    },
  };
}

/**
 * The posted form (the body cap is Hono's bodyLimit above). A page that takes `uploads`
 * also reads multipart: a file's text is the field's value, its name `<field>_name`.
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

function errorResponse(deps: Deps, c: Context<AppEnv>, err: Error): Response {
  const known = err instanceof AppError;
  if (!known) {
    logger.error("unhandled error", { request_id: c.get("requestId"), error: err });
  }
  const status = known ? err.status : 500;
  const message = known ? err.message : "Something went wrong on our side. Try again.";
  // Back to the admin page the request came from (a refused form's page), else the forms;
  // never a link to the very page that failed.
  const from = refererPage(deps, c);
  const here = new URL(c.req.url);
  const self = c.req.method === "GET" && from === here.pathname + here.search;
  const back = from && !self
    ? { href: from, label: "Back to the previous page" }
    : { href: "/admin/forms", label: "Back to forms" };
  const refused = err instanceof RoleRefused;
  const html = renderDocument({
    title: `Error ${status} · Formwell`,
    body: h(Fragment, null, h(ErrorPage, { status, message, back, refused })),
    bodyClass: "admin",
  });
  return c.html(html, status as 400);
}
