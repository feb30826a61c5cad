/**
 * The HTTP side of the metrics: the middleware counting every answered request by route
 * pattern (Hono's matched route, never the raw path) and the `/metrics` token check.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { createHash, timingSafeEqual } from "node:crypto";
import type { MetricsPort } from "./types.ts";

/** The route label of requests no route matched (only middleware ran). */
export const UNMATCHED = "unmatched";

/** Counts each request once its response is ready (installed only when metrics are on). */
export function httpMetrics(metrics: MetricsPort): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now();
    await next();
    let route = routePath(c);
    // Only middleware matched (a 404 from notFound): no pattern to report.
    if (route === "" || route.endsWith("*")) route = c.res.status === 404 ? UNMATCHED : route;
    metrics.request(route, c.res.status, (performance.now() - start) / 1000);
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
