/**
 * Server Data API, the workspace's audit log (`admin` scope, live keys only), newest
 * first, filtered by `action`, paginated as every list. Mounted by routes/mod.ts.
 * @module
 */
import { Hono } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { parseQuery } from "@/lib/http/pagination.ts";
import { auditQuerySchema, listAudit } from "@/lib/privacy/audit.ts";
import { keyAuth, type ServerEnv } from "./_key_auth.ts";

/** The audit route, mounted under `/api/v1/server`. */
export function auditApi(deps: Deps): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  app.get("/audit", keyAuth(deps, { scope: "admin", route: "server_audit" }), async (c) => {
    // The audit log is live data: who did what with the workspace's real submissions.
    if (c.get("auth").mode !== "live") throw errors.liveKeyRequired();
    const q = parseQuery(auditQuerySchema, c.req.query());
    c.header("Cache-Control", "no-store");
    return c.json(await listAudit(deps, c.get("auth").workspace.id, q));
  });
  return app;
}
