/**
 * The admin sub-app: mounts every page of the generated manifest (`_routes.gen.ts`: each
 * page at the URL its file name says) behind the admin's middleware (public-host refusal,
 * headers, CSRF, body cap; see docs/decisions/http-middleware.md) and the access guard of
 * its declared `access` (routes/admin/_access.ts).
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
import { MAX_BODY_BYTES } from "@/lib/http/body.ts";
import { paramGuard } from "@/lib/http/validation.ts";
import { isPageResult } from "@/lib/ui/define.ts";
import { renderDocument } from "@/lib/ui/document.tsx";
import { logger } from "@/lib/observe/log.ts";
import { Layout } from "./_layout.tsx";
import { RoleRefused } from "./_page.ts";
import {
  type Access,
  type AdminEnv,
  checkPage,
  guard,
  type Method,
  type PageEntry,
} from "./_access.ts";
import { refererPage } from "./_session.ts";
import { ErrorPage } from "./_error.tsx";
import { PAGES } from "./_routes.gen.ts";

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

/**
 * The admin sub-app, mounted at `/admin`: `pages` (the generated manifest) each behind
 * its access guard. Throws, so the server does not start, if a page declares no access.
 */
export function adminRoutes(deps: Deps, pages: PageEntry[] = PAGES): Hono<AppEnv> {
  const checked = pages.map((p) => {
    checkPage(p);
    return p;
  });
  const app = new Hono<AdminEnv>();
  app.use("*", notOnPublicHost(deps));
  app.use("*", strictPageHeaders(deps.config));
  app.use("*", noStore());
  app.use("*", crossSiteGuard(deps));
  // A page that takes a file upload (its access's `uploads`) takes a larger body.
  const uploads = checked.filter((p) => p.access.uploads).map((p) => pathRegExp(p.pattern));
  app.on("POST", "*", (c, next) =>
    bodyLimit({
      maxSize: uploads.some((re) => re.test(c.req.path)) ? MAX_UPLOAD_BYTES : MAX_BODY_BYTES,
      onError: () => {
        throw errors.payloadTooLarge();
      },
    })(c, next));
  app.onError((err, c) => errorResponse(deps, c, err));
  // An id in a path that the service cannot have issued is the 404 page before any read.
  const ids = paramGuard((c) =>
    errorResponse(deps, c, new AppError(404, "not_found", "Page not found."))
  );
  for (const entry of checked) {
    for (const method of ["GET", "POST"] as const) {
      if (!entry.handler[method]) continue;
      app.on(method, entry.pattern, ids, guard(deps, entry, method), render(entry, method));
    }
  }
  app.all("*", (c) => errorResponse(deps, c, new AppError(404, "not_found", "Page not found.")));
  return app;
}

/** The full request path of a page's pattern (`/admin/forms/[^/]+/import`). */
function pathRegExp(pattern: string): RegExp {
  const parts = pattern.split("/").map((p) =>
    p.startsWith(":") ? "[^/]+" : p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  );
  return new RegExp(`^/admin${parts.join("/").replace(/\/$/, "")}/?$`);
}

/** Runs the page's handler on the guard's context and renders its component with the data. */
function render(entry: PageEntry & { access: Access }, method: Method) {
  const handler = entry.handler[method]!;
  return async (c: Context<AdminEnv>): Promise<Response> => {
    const ctx = c.get("page")!;
    const result = await handler(ctx);
    if (!isPageResult(result)) return result;
    const csrf = ctx.state?.session.csrf ?? "";
    const props = { state: ctx.state, url: ctx.url, csrf };
    const body = entry.component ? h(entry.component, { ...props, data: result.data }) : null;
    const html = renderDocument({
      title: result.title ? `${result.title} · Formwell` : "Formwell",
      body: h(Fragment, null, h(Layout, { ...props, children: body })),
      bodyClass: "admin",
    });
    return c.html(html, (result.status ?? 200) as 200, result.headers);
  };
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
