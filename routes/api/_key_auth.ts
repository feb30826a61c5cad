/**
 * Key authentication shared by the Server Data API's sub-apps (server, privacy, audit):
 * the middleware, its Hono env, and who a key-authenticated call is for the audit log.
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { type AppEnv, clientIp } from "@/lib/http/http.ts";
import { authenticateKey, keyActor, requireScope } from "@/lib/keys/auth.ts";
import type { KeyAuth } from "@/lib/keys/types.ts";
import { audit } from "@/lib/privacy/audit.ts";
import { enforceLimit } from "@/lib/ratelimit/rate_limit.ts";
import type { Scope } from "@/lib/schemas.ts";

/** Hono env of key-authenticated routes: `c.get("auth")` is the caller. */
export type ServerEnv = {
  Variables: AppEnv["Variables"] & { auth: KeyAuth };
  Bindings: AppEnv["Bindings"];
};

/**
 * Key auth for one route: no `Authorization` is 401 `missing_api_key`; an invalid or
 * revoked key 401 `Invalid API key.`; a workspace below Starter 403 `plan_required`; a
 * key without `scope` 403 `insufficient_scope`; then one unit of the workspace's
 * per-route budget (429 `rate_limited`). Sets `c.var.auth`.
 */
export function keyAuth(
  deps: Deps,
  opts: { scope: Scope; route: string },
): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization");
    if (header === undefined || header.trim() === "") throw errors.missingApiKey();
    const auth = await authenticateKey(deps, header);
    requireScope(auth, opts.scope);
    await enforceLimit(deps, {
      route: opts.route,
      identity: `ws:${auth.workspace.id}`,
      perMinute: deps.config.rateLimits.workspace,
    });
    c.set("auth", auth);
    await next();
  };
}

export { keyActor } from "@/lib/keys/auth.ts";

/** Audits a Server Data API delete of `n` submissions (nothing when none went). */
export async function auditDelete(
  deps: Deps,
  c: Context<ServerEnv>,
  formId: string,
  n: number,
): Promise<void> {
  if (n === 0) return;
  const auth = c.get("auth");
  await audit(deps, {
    workspaceId: auth.workspace.id,
    action: "submissions.deleted",
    actor: keyActor(auth),
    ip: clientIp(c, deps.config.trustProxy),
    details: { form: formId, mode: auth.mode, count: n },
  });
}
