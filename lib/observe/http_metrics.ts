/**
 * The HTTP side of metrics and logs: middleware counting (and, with `LOG_REQUESTS`, logging)
 * every answered request by route pattern (Hono's matched route, never the raw path), and
 * the `/metrics` token check.
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { createHash, timingSafeEqual } from "node:crypto";
import type { MetricsPort } from "./types.ts";
import { log } from "./log.ts";

/** The route label of requests no route matched (only middleware ran). */
export const UNMATCHED = "unmatched";

/** The route pattern that answered (after `next()`), or UNMATCHED for the router's 404. */
export function routeLabel(c: Context): string {
  const route = routePath(c);
  // Only middleware matched (a 404 from notFound): no pattern to report.
  return (route === "" || route.endsWith("*")) && c.res.status === 404 ? UNMATCHED : route;
}

/** Counts each request once its response is ready (installed only when metrics are on). */
export function httpMetrics(metrics: MetricsPort): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now();
    await next();
    metrics.request(routeLabel(c), c.res.status, (performance.now() - start) / 1000);
  };
}

/**
 * One `request` line per answered request (`LOG_REQUESTS`): method, route pattern, status
 * and milliseconds; never the raw path or query, which may hold tokens.
 */
export function accessLog(): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now();
    await next();
    const ms = Math.round((performance.now() - start) * 10) / 10;
    const status = c.res.status;
    log(status >= 500 ? "error" : "info", "request", {
      method: c.req.method,
      route: routeLabel(c),
      status,
      ms,
    });
  };
}

function digest(s: string): Uint8Array {
  return createHash("sha256").update(s).digest();
}

/** Whether `authorization` is `Bearer <token>`, compared in constant time. */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  return timingSafeEqual(digest(m?.[1] ?? ""), digest(token)) && m !== null;
}
