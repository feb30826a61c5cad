/**
 * Server Data API, the workspace's audit log (`admin` scope, live keys only), newest
 * first, filtered by `action`, paginated as every list. Mounted by routes/mod.ts.
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Deps } from "@/lib/deps.ts";
import { apiApp, BEARER } from "@/lib/api/app.ts";
import {
  auditEventSchema,
  errorResponses,
  jsonResponse,
  KEY_ERRORS,
  paginationSchema,
} from "@/lib/api/schemas.ts";
import { errors } from "@/lib/errors.ts";
import { auditQuerySchema, listAudit } from "@/lib/privacy/audit.ts";
import { keyAuth, type ServerEnv } from "./_key_auth.ts";

const auditRoute = createRoute({
  method: "get",
  path: "/audit",
  operationId: "listAuditEvents",
  tags: ["Audit"],
  security: BEARER,
  summary: "List the audit log",
  description: "Who did what in the workspace, newest first, filtered by `action`. Scope " +
    "`admin`, live keys only (a test key gets 403 `live_key_required`).",
  request: { query: auditQuerySchema },
  responses: {
    200: jsonResponse(
      "A page of audit events.",
      z.object({ events: z.array(auditEventSchema), pagination: paginationSchema }),
    ),
    ...errorResponses(400, ...KEY_ERRORS),
  },
});

/** The audit route, mounted under `/api/v1/server`. */
export function auditApi(deps: Deps): OpenAPIHono<ServerEnv> {
  const app = apiApp<ServerEnv>();
  const auth = keyAuth(deps, { scope: "admin", route: "server_audit" });
  app.openapi({ ...auditRoute, middleware: [auth] }, async (c) => {
    // The audit log is live data: who did what with the workspace's real submissions.
    if (c.get("auth").mode !== "live") throw errors.liveKeyRequired();
    c.header("Cache-Control", "no-store");
    return c.json(await listAudit(deps, c.get("auth").workspace.id, c.req.valid("query")), 200);
  });
  return app;
}
