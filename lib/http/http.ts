/**
 * HTTP glue shared by every route: request ids, baseline security headers, the one error
 * handler, client IPs.
 * @module
 */
import type { Context, ErrorHandler, MiddlewareHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { getConnInfo } from "hono/deno";
import { requestId as honoRequestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import type { Config } from "@/lib/config.ts";
import { AppError, errors } from "@/lib/errors.ts";
import type { RateLimitName } from "@/lib/config.ts";
import type { Deps } from "@/lib/deps.ts";
import type { Form } from "@/lib/schemas.ts";
import { randomBase62 } from "@/lib/ids.ts";
import { notFoundHtml, wantsHtmlPage } from "@/lib/ui/plain_pages.tsx";
import { ADMIN_CSP } from "@/lib/ui/csp.ts";
import { enforceLimit, ipIdentity } from "@/lib/ratelimit/rate_limit.ts";
import { logger, withRequestId } from "@/lib/observe/log.ts";

/** Hono variables set by the middleware below. */
export type AppEnv = {
  Variables: {
    requestId: string;
    /** A submit's form as the route read it (publicCors grants from it, see lib/http/cors.ts). */
    submitForm?: Form;
  };
  Bindings: { remoteAddr?: { hostname?: string } };
};

const assignRequestId = honoRequestId({
  limitLength: 128,
  generator: () => `req_${randomBase62(20)}`,
});

/**
 * Hono's request id (a well-formed incoming `X-Request-Id` is kept), also set after the
 * handler so responses built as plain `Response`s carry it too; every line logged while
 * the request runs carries it (observe/log.ts).
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return (c, next) =>
    assignRequestId(c, () =>
      withRequestId(c.get("requestId"), async () => {
        await next();
        c.res.headers.set("X-Request-Id", c.get("requestId"));
      }));
}

/** HSTS when the service is reached over https (`BASE_URL` or `PUBLIC_BASE_URL`). */
export function hstsValue(config: Pick<Config, "baseUrl" | "publicBaseUrl">): string | false {
  const https = [config.baseUrl, config.publicBaseUrl].some((u) => u.startsWith("https:"));
  return https ? "max-age=31536000" : false;
}

/**
 * Hono's secure headers on every response that did not set its own (`nosniff`, HSTS on
 * https...). Framing and cross-origin reads stay allowed: hosted forms are embedded and
 * files are shown on customers' sites.
 */
export function baselineHeaders(
  config: Pick<Config, "baseUrl" | "publicBaseUrl">,
): MiddlewareHandler<AppEnv> {
  return secureHeaders({
    overwrite: false,
    strictTransportSecurity: hstsValue(config),
    xFrameOptions: false,
    crossOriginResourcePolicy: false,
    crossOriginOpenerPolicy: false,
  });
}

/**
 * Hono's secure headers with the admin's strict policy (our origin only, no inline code,
 * no framing): admin pages and the API reference.
 */
export function strictPageHeaders(
  config: Pick<Config, "baseUrl" | "publicBaseUrl">,
): MiddlewareHandler<AppEnv> {
  return secureHeaders({
    contentSecurityPolicy: ADMIN_CSP,
    xFrameOptions: "DENY",
    referrerPolicy: "same-origin",
    strictTransportSecurity: hstsValue(config),
  });
}

/** `Cache-Control: no-store` on every response (admin pages, the Server Data API). */
export function noStore(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    c.res.headers.set("Cache-Control", "no-store");
  };
}

/** Renders an error as `{error, code}`; a 500 never shows internal messages. */
export const onError: ErrorHandler<AppEnv> = (err, c) => {
  const id = c.get("requestId") ?? `req_${randomBase62(20)}`;
  let res: Response;
  if (err instanceof AppError) {
    res = c.json(err.toBody(), err.status as 400);
  } else if (err instanceof HTTPException && err.status === 415) {
    res = c.json(errors.unsupportedMediaType(["application/json"]).toBody(), 415);
  } else if (err instanceof HTTPException && err.status < 500) {
    res = c.json({ error: err.message || "Bad request.", code: "bad_request" }, err.status);
  } else {
    logger.error("unhandled error", { request_id: id, error: err });
    res = c.json({ error: "Internal server error.", code: "internal_error", request_id: id }, 500);
  }
  res.headers.set("X-Request-Id", id);
  return res;
};

/** The 404 for unknown routes: JSON, or an HTML page for a browser outside `/api/`. */
export const notFound: NotFoundHandler<AppEnv> = (c) =>
  wantsHtmlPage(c.req.raw)
    ? notFoundHtml()
    : c.json({ error: "Not found.", code: "not_found" }, 404);

/**
 * The client IP: with `TRUST_PROXY`, the right-most `X-Forwarded-For` entry (the one our
 * proxy appended); otherwise the socket's peer address.
 */
export function clientIp<E extends { Bindings: AppEnv["Bindings"] }>(
  c: Context<E>,
  trustProxy: boolean,
): string {
  if (trustProxy) {
    const xff = c.req.header("x-forwarded-for");
    const last = xff?.split(",").map((s) => s.trim()).filter(Boolean).pop();
    if (last && /^[0-9a-fA-F:.]{2,45}$/.test(last)) return last;
  }
  // app.request() (tests) has no socket.
  return c.env?.remoteAddr ? getConnInfo(c).remote.address ?? "unknown" : "unknown";
}

/** Spends one unit of a public route's per-IP limit (IPv6 by /64); 429 when refused. */
export async function limitByClientIp(
  deps: Pick<Deps, "limits" | "config">,
  c: Context<AppEnv>,
  route: RateLimitName,
): Promise<void> {
  await enforceLimit(deps, {
    route,
    identity: ipIdentity(clientIp(c, deps.config.trustProxy)),
    perMinute: deps.config.rateLimits[route],
  });
}

/**
 * {@linkcode limitByClientIp} as route middleware, so the unit is spent before the route's
 * validators run: a malformed request costs its sender like any other.
 */
export function limitedByClientIp(
  deps: Pick<Deps, "limits" | "config">,
  route: RateLimitName,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await limitByClientIp(deps, c, route);
    await next();
  };
}
