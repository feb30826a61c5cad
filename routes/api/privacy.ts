/**
 * Server Data API, privacy (CONTRACT "Data lifecycle and privacy"): erase by person (a
 * job), its progress, and export by person. Mounted by routes/api/server.ts, which lends
 * its key auth; the workspace and data mode come from the key.
 * @module
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { mediaType, parseJsonObject, readBody } from "@/lib/http/body.ts";
import type { AppEnv } from "@/lib/http/http.ts";
import type { KeyAuth } from "@/lib/keys/api_keys.ts";
import { audit } from "@/lib/privacy/audit.ts";
import { eraseBodySchema, jobView, requirePrivacyJob, startErase } from "@/lib/privacy/erase.ts";
import { exportByEmail } from "@/lib/privacy/export.ts";
import type { Scope } from "@/lib/schemas.ts";

/** Hono env of key-authenticated routes (the same shape as routes/api/server.ts's). */
export type KeyEnv = {
  Variables: AppEnv["Variables"] & { auth: KeyAuth };
  Bindings: AppEnv["Bindings"];
};
/** Builds the key-auth middleware of one route. */
export type KeyAuthFor = (scope: Scope, route: string) => MiddlewareHandler<KeyEnv>;

/** Who a key-authenticated call is, for the audit log. */
export function keyActor(auth: KeyAuth): string {
  return `key:${auth.key.prefix}`;
}

/**
 * The caller's address for the audit log, as lib/http/http.ts's `clientIp` finds it (that
 * one is typed for the public env; the lead may make it generic and drop this copy).
 */
export function callerIp(deps: Deps, c: Context<KeyEnv>): string {
  if (deps.config.trustProxy) {
    const xff = c.req.header("x-forwarded-for");
    const last = xff?.split(",").map((s) => s.trim()).filter(Boolean).pop();
    if (last && /^[0-9a-fA-F:.]{2,45}$/.test(last)) return last;
  }
  return c.env?.remoteAddr?.hostname ?? "unknown";
}

/** The email an export or erase is about, or a 400 naming the problem. */
function parseEmail(raw: unknown): string {
  const parsed = eraseBodySchema.safeParse(raw);
  if (!parsed.success) {
    throw errors.badRequest('Send {"email": "person@example.com"} with one email address.');
  }
  return parsed.data.email;
}

/** Audits a Server Data API delete of `n` submissions (nothing when none went). */
export async function auditDelete(deps: Deps, c: Context<KeyEnv>, formId: string, n: number) {
  if (n === 0) return;
  const auth = c.get("auth");
  await audit(deps, {
    workspaceId: auth.workspace.id,
    action: "submissions.deleted",
    actor: keyActor(auth),
    ip: callerIp(deps, c),
    details: { form: formId, mode: auth.mode, count: n },
  });
}

/** The privacy routes, mounted under `/api/v1/server`. */
export function privacyApi(deps: Deps, keyAuth: KeyAuthFor): Hono<KeyEnv> {
  const app = new Hono<KeyEnv>();

  app.post("/privacy/erase", keyAuth("admin", "server_privacy_erase"), async (c) => {
    const type = mediaType(c.req.header("content-type"));
    if (type && type !== "application/json") {
      throw errors.unsupportedMediaType(["application/json"]);
    }
    const email = parseEmail(parseJsonObject(await readBody(c.req.raw)));
    const auth = c.get("auth");
    const job = await startErase(deps, {
      workspaceId: auth.workspace.id,
      modes: [auth.mode],
      email,
      actor: keyActor(auth),
      ip: callerIp(deps, c),
    });
    return c.json({ job: jobView(job) }, 202);
  });

  app.get("/privacy/jobs/:id", keyAuth("admin", "server_privacy_job"), async (c) => {
    const job = await requirePrivacyJob(deps, c.get("auth").workspace.id, c.req.param("id"));
    c.header("Cache-Control", "no-store");
    return c.json({ job: jobView(job) });
  });

  app.get("/privacy/export", keyAuth("read", "server_privacy_export"), async (c) => {
    const email = parseEmail({ email: c.req.query("email") ?? "" });
    const auth = c.get("auth");
    const result = await exportByEmail(deps, auth.workspace.id, auth.mode, email);
    await audit(deps, {
      workspaceId: auth.workspace.id,
      action: "export.privacy",
      actor: keyActor(auth),
      ip: callerIp(deps, c),
      details: { count: result.submissions.length },
    });
    c.header("Cache-Control", "no-store");
    return c.json({ email, ...result });
  });

  return app;
}
