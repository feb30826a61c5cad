/**
 * HTTP glue shared by every route: request ids, the one error handler, client IPs.
 * @module
 */
import type { Context, ErrorHandler, MiddlewareHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { AppError } from "@/lib/errors.ts";
import type { RateLimitName } from "@/lib/config.ts";
import type { Deps } from "@/lib/deps.ts";
import type { Form } from "@/lib/schemas.ts";
import { randomBase62 } from "@/lib/ids.ts";
import { enforceLimit, ipIdentity } from "@/lib/ratelimit/rate_limit.ts";

/** Hono variables set by the middleware below. */
export type AppEnv = {
  Variables: {
    requestId: string;
    /** A submit's form as the route read it (publicCors grants from it, see lib/http/cors.ts). */
    submitForm?: Form;
  };
  Bindings: { remoteAddr?: { hostname?: string } };
};

const REQUEST_ID = /^[A-Za-z0-9._:@-]{8,128}$/;

/** Keeps a well-formed incoming `X-Request-Id`, else makes one; sets it on every response. */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const id = incoming && REQUEST_ID.test(incoming) ? incoming : `req_${randomBase62(20)}`;
    c.set("requestId", id);
    c.header("X-Request-Id", id);
    await next();
    c.res.headers.set("X-Request-Id", id);
  };
}

/** Renders an error as `{error, code}`; a 500 never shows internal messages. */
export const onError: ErrorHandler<AppEnv> = (err, c) => {
  const id = c.get("requestId") ?? `req_${randomBase62(20)}`;
  let res: Response;
  if (err instanceof AppError) {
    res = c.json(err.toBody(), err.status as 400);
  } else if (err instanceof HTTPException && err.status < 500) {
    res = c.json({ error: err.message || "Bad request.", code: "bad_request" }, err.status);
  } else {
    console.error(
      JSON.stringify({ level: "error", request_id: id, msg: String((err as Error)?.stack ?? err) }),
    );
    res = c.json({ error: "Internal server error.", code: "internal_error", request_id: id }, 500);
  }
  res.headers.set("X-Request-Id", id);
  return res;
};

/** The JSON 404 for unknown routes. */
export const notFound: NotFoundHandler<AppEnv> = (c) =>
  c.json({ error: "Not found.", code: "not_found" }, 404);

/**
 * The client IP: with `TRUST_PROXY`, the right-most `X-Forwarded-For` entry (the one our
 * proxy appended); otherwise the socket's peer address.
 */
export function clientIp(c: Context<AppEnv>, trustProxy: boolean): string {
  if (trustProxy) {
    const xff = c.req.header("x-forwarded-for");
    const last = xff?.split(",").map((s) => s.trim()).filter(Boolean).pop();
    if (last && /^[0-9a-fA-F:.]{2,45}$/.test(last)) return last;
  }
  return c.env?.remoteAddr?.hostname ?? "unknown";
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
