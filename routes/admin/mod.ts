/**
 * The admin's tiny router: mounts each page module (`handler` + default component) onto
 * Hono, and wraps every page in the security middleware: headers, session, the
 * Origin/Sec-Fetch-Site check and the per-session CSRF token on every POST.
 * @module
 */
import { Hono } from "hono";
import { h, type VNode } from "preact";
import type { Context } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { AppError } from "@/lib/errors.ts";
import type { AppEnv } from "@/lib/http/http.ts";
import { MAX_BODY_BYTES, readBody } from "@/lib/http/body.ts";
import { renderDocument } from "@/lib/ui/document.tsx";
import { csrfMatches, getSession, readSessionToken, renewSession } from "@/lib/admin/sessions.ts";
import { getUser } from "@/lib/admin/users.ts";
import { getWorkspace, listWorkspaces } from "@/lib/workspaces/workspaces.ts";
import { Layout } from "./_layout.tsx";
import { type AdminState, canAccess, type PageContext, type PageModule } from "./_page.ts";
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
import * as subs from "@/routes/admin/forms/[id]/submissions/index.tsx";
import * as subShow from "@/routes/admin/forms/[id]/submissions/[sid].tsx";
import * as subExport from "@/routes/admin/forms/[id]/export.ts";
import * as subFile from "@/routes/admin/forms/[id]/file.ts";
import * as apiKeys from "@/routes/admin/keys/index.tsx";
import * as keyRevoke from "@/routes/admin/keys/[kid]/revoke.tsx";

/** Path (under /admin) to page module; Hono's `:param` syntax. */
const PAGES: [string, PageModule][] = [
  ["/", home],
  ["/login", login],
  ["/logout", logout],
  ["/switch", sw],
  ["/workspaces", workspaces],
  ["/forms", forms],
  ["/forms/new", formNew],
  ["/forms/:id", formShow],
  ["/forms/:id/edit", formEdit],
  ["/forms/:id/submissions", subs],
  ["/forms/:id/submissions/:sid", subShow],
  ["/forms/:id/export.csv", subExport],
  ["/forms/:id/file", subFile],
  ["/keys", apiKeys],
  ["/keys/:kid/revoke", keyRevoke],
];

/**
 * Headers on every admin response. Scripts only from our origin (the island bundles), no
 * inline script or style, no framing, no referrer leaking form ids to other sites.
 */
const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; " +
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
    "form-action 'self'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "Cache-Control": "no-store",
};

/** The admin sub-app, mounted at `/admin`. */
export function adminRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    await next();
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(k, v);
  });
  app.onError((err, c) => errorResponse(c, err));
  for (const [path, mod] of PAGES) {
    if (mod.handler.GET) app.get(path, (c) => run(deps, c, mod, "GET"));
    if (mod.handler.POST) app.post(path, (c) => run(deps, c, mod, "POST"));
  }
  app.all("*", (c) => errorResponse(c, new AppError(404, "not_found", "Page not found.")));
  return app;
}

async function run(
  deps: Deps,
  c: Context<AppEnv>,
  mod: PageModule,
  method: "GET" | "POST",
): Promise<Response> {
  const url = new URL(c.req.url);
  if (method === "POST" && !sameOrigin(deps, c)) {
    throw new AppError(403, "forbidden", "Cross-site request blocked. Reload the page and retry.");
  }
  const token = readSessionToken(deps.config, c.req.header("cookie"));
  const state = await loadState(deps, token);
  if (!state && !mod.isPublic) {
    // A POST-only path would be a 404 after sign-in: return to the page the form was on.
    const back = method === "GET" ? url.pathname + url.search : refererPage(deps, c);
    return c.redirect(back ? `/admin/login?next=${encodeURIComponent(back)}` : "/admin/login", 303);
  }
  const body = method === "POST" ? await readForm(c) : new URLSearchParams();
  if (method === "POST" && state && !csrfMatches(state.session, body.get("_csrf"))) {
    throw new AppError(
      403,
      "forbidden",
      "This form expired or came from another site. Reload the page and retry.",
    );
  }
  const csrf = state?.session.csrf ?? "";
  const ctx: PageContext = {
    deps,
    c,
    url,
    params: c.req.param() as Record<string, string>,
    state,
    body,
    render: (data, opts = {}) => {
      const page = mod.default ? h(mod.default, { data, state, url, csrf }) : null;
      const html = renderDocument({
        title: opts.title ? `${opts.title} · Formwell` : "Formwell",
        body: h(Layout, { state, url, csrf, children: page }) as VNode,
        bodyClass: "admin",
      });
      return c.html(html, (opts.status ?? 200) as 200);
    },
    redirect: (to, notice) => {
      const sep = to.includes("?") ? "&" : "?";
      return c.redirect(notice ? `${to}${sep}notice=${notice}` : to, 303);
    },
  };
  return await mod.handler[method]!(ctx);
}

/**
 * A mutation must come from our own pages: `Sec-Fetch-Site` (sent by every current
 * browser) must say same-origin, and an `Origin` header, when present, must be ours.
 * The CSRF token is checked as well; this check also guards the sign-in form.
 */
function sameOrigin(deps: Deps, c: Context<AppEnv>): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site && site !== "same-origin") return false;
  const origin = c.req.header("origin");
  if (origin === undefined) return true;
  const ours = new Set([new URL(c.req.url).origin, new URL(deps.config.baseUrl).origin]);
  return ours.has(origin);
}

/** The same-origin admin page in `Referer` (sent in full: Referrer-Policy same-origin). */
function refererPage(deps: Deps, c: Context<AppEnv>): string | null {
  let ref: URL;
  try {
    ref = new URL(c.req.header("referer") ?? "");
  } catch {
    return null;
  }
  const ours = [new URL(c.req.url).origin, new URL(deps.config.baseUrl).origin];
  if (!ours.includes(ref.origin)) return null;
  if (!/^\/admin(\/|$)/.test(ref.pathname) || ref.pathname.startsWith("/admin/login")) {
    return null;
  }
  return ref.pathname + ref.search;
}

async function readForm(c: Context<AppEnv>): Promise<URLSearchParams> {
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new AppError(415, "unsupported_media_type", "Send the form as a normal HTML form.");
  }
  const bytes = await readBody(c.req.raw, MAX_BODY_BYTES);
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

async function loadState(deps: Deps, token: string | undefined): Promise<AdminState | null> {
  const found = await getSession(deps, token);
  if (!found || !token) return null;
  // Any request, page view or save, keeps an active admin signed in (up to the cap).
  const session = await renewSession(deps, token, found);
  const user = await getUser(deps, session.user_id);
  if (!user) return null;
  const all = user.owner
    ? await listWorkspaces(deps)
    : (await Promise.all(user.workspace_ids.map((id) => getWorkspace(deps, id))))
      .filter((w) => w !== null);
  const base = { user, session, token, workspaces: all, workspace: null };
  const current = all.find((w) => w.id === session.workspace_id && canAccess(base, w.id)) ??
    all[0] ?? null;
  return { ...base, workspace: current };
}

function errorResponse(c: Context<AppEnv>, err: Error): Response {
  const known = err instanceof AppError;
  if (!known) {
    console.error(JSON.stringify({
      level: "error",
      request_id: c.get("requestId"),
      msg: String(err?.stack ?? err),
    }));
  }
  const status = known ? err.status : 500;
  const message = known ? err.message : "Something went wrong on our side. Try again.";
  const html = renderDocument({
    title: `Error ${status} · Formwell`,
    body: h(ErrorPage, { status, message }) as VNode,
    bodyClass: "admin",
  });
  const res = c.html(html, status as 400);
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.headers.set(k, v);
  return res;
}
