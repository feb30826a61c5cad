/**
 * Server Data API, the workspace's audit log (`admin` scope), newest first, filtered by
 * `action`, paginated as every list. Mounted by routes/api/server.ts.
 * @module
 */
import { Hono } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { parseQuery } from "@/lib/http/pagination.ts";
import { auditQuerySchema, listAudit } from "@/lib/privacy/audit.ts";
import type { KeyAuthFor, KeyEnv } from "./privacy.ts";

/** The audit route, mounted under `/api/v1/server`. */
export function auditApi(deps: Deps, keyAuth: KeyAuthFor): Hono<KeyEnv> {
  const app = new Hono<KeyEnv>();
  app.get("/audit", keyAuth("admin", "server_audit"), async (c) => {
    const q = parseQuery(auditQuerySchema, c.req.query());
    c.header("Cache-Control", "no-store");
    return c.json(await listAudit(deps, c.get("auth").workspace.id, q));
  });
  return app;
}
