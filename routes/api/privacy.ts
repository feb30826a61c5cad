/**
 * Server Data API, privacy (CONTRACT "Data lifecycle and privacy"): erase by person (a
 * job), its progress, and export by person. Mounted by routes/mod.ts under
 * `/api/v1/server`; the workspace and data mode come from the key.
 * @module
 */
import { Hono } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { mediaType, parseJsonObject, readBody } from "@/lib/http/body.ts";
import { clientIp } from "@/lib/http/http.ts";
import { audit } from "@/lib/privacy/audit.ts";
import { eraseBodySchema, jobView, requirePrivacyJob, startErase } from "@/lib/privacy/erase.ts";
import { exportByEmail } from "@/lib/privacy/export.ts";
import { keyActor, keyAuth, type ServerEnv } from "./_key_auth.ts";

/** The email an export or erase is about, or a 400 naming the problem. */
function parseEmail(raw: unknown): string {
  const parsed = eraseBodySchema.safeParse(raw);
  if (!parsed.success) {
    throw errors.badRequest('Send {"email": "person@example.com"} with one email address.');
  }
  return parsed.data.email;
}

/** The privacy routes, mounted under `/api/v1/server`. */
export function privacyApi(deps: Deps): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();

  app.post(
    "/privacy/erase",
    keyAuth(deps, { scope: "admin", route: "server_privacy_erase" }),
    async (c) => {
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
        ip: clientIp(c, deps.config.trustProxy),
      });
      return c.json({ job: jobView(job) }, 202);
    },
  );

  app.get(
    "/privacy/jobs/:id",
    keyAuth(deps, { scope: "admin", route: "server_privacy_job" }),
    async (c) => {
      const job = await requirePrivacyJob(deps, c.get("auth").workspace.id, c.req.param("id"));
      c.header("Cache-Control", "no-store");
      return c.json({ job: jobView(job) });
    },
  );

  app.get(
    "/privacy/export",
    keyAuth(deps, { scope: "read", route: "server_privacy_export" }),
    async (c) => {
      const email = parseEmail({ email: c.req.query("email") ?? "" });
      const auth = c.get("auth");
      const result = await exportByEmail(deps, auth.workspace.id, auth.mode, email);
      await audit(deps, {
        workspaceId: auth.workspace.id,
        action: "export.privacy",
        actor: keyActor(auth),
        ip: clientIp(c, deps.config.trustProxy),
        details: { count: result.submissions.length },
      });
      c.header("Cache-Control", "no-store");
      return c.json({ email, ...result });
    },
  );

  return app;
}
