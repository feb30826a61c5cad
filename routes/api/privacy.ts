/**
 * Server Data API, privacy (CONTRACT "Data lifecycle and privacy"): erase by person (a
 * job), its progress, and export by person. Mounted by routes/mod.ts under
 * `/api/v1/server`; the workspace and data mode come from the key.
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Deps } from "@/lib/deps.ts";
import { apiApp, BEARER } from "@/lib/api/app.ts";
import {
  draftListItemSchema,
  errorResponses,
  idParam,
  jsonRequest,
  jsonResponse,
  KEY_ERRORS,
  privacyJobSchema,
  submissionSchema,
} from "@/lib/api/schemas.ts";
import { clientIp } from "@/lib/http/http.ts";
import { jsonBody } from "@/lib/http/validation.ts";
import { audit } from "@/lib/privacy/audit.ts";
import { eraseBodySchema, jobView, requirePrivacyJob, startErase } from "@/lib/privacy/erase.ts";
import { exportByEmail } from "@/lib/privacy/export.ts";
import { keyActor, keyAuth, type ServerEnv } from "./_key_auth.ts";

const base = { tags: ["Privacy"], security: BEARER };

const eraseRoute = createRoute({
  ...base,
  method: "post",
  path: "/privacy/erase",
  operationId: "eraseByEmail",
  summary: "Erase a person's data",
  description: "Starts a job deleting every submission (of the key's mode) that holds this " +
    "email address, with its files and what notifications kept. Scope `admin`. Audited.",
  request: {
    body: jsonRequest(eraseBodySchema, { email: "ada@example.com" }),
  },
  responses: {
    202: jsonResponse("The job, running.", z.object({ job: privacyJobSchema })),
    ...errorResponses(400, 413, 415, 401, 403, 429),
  },
});

const jobRoute = createRoute({
  ...base,
  method: "get",
  path: "/privacy/jobs/{id}",
  operationId: "getPrivacyJob",
  summary: "Get an erase job",
  description: "An erase job's progress: `running` or `done`, with counts by form. " +
    "Scope `admin`.",
  request: {
    params: z.object({
      id: idParam("id", "job_01jd8y5x2n3k4m5p6q7r8s9t0v", "Privacy job not found."),
    }),
  },
  responses: {
    200: jsonResponse("The job.", z.object({ job: privacyJobSchema })),
    ...errorResponses(...KEY_ERRORS),
  },
});

const exportRoute = createRoute({
  ...base,
  method: "get",
  path: "/privacy/export",
  operationId: "exportByEmail",
  summary: "Export a person's data",
  description: "Every submission (of the key's mode) holding this email address, with its " +
    "form, their drafts (saved progress not submitted) and the resume links mailed to the " +
    "address. Scope `read`. Audited.",
  request: { query: z.object({ email: eraseBodySchema.shape.email }) },
  responses: {
    200: jsonResponse(
      "The person's submissions.",
      z.object({
        email: z.string(),
        submissions: z.array(
          submissionSchema.extend({
            form: z.object({ public_id: z.string(), name: z.string() }),
          }).loose(),
        ),
        drafts: z.array(draftListItemSchema.extend({
          form: z.object({ public_id: z.string(), name: z.string() }),
        })).meta({ description: "Saved progress holding the address (live data only)." }),
        resume_mails: z.array(z.object({
          id: z.string(),
          form: z.object({ public_id: z.string(), name: z.string() }),
          sent_at: z.string(),
        })).meta({
          description: "Resume links mailed to the address at a visitor's request, the last " +
            "30 days (live data only; the link itself is never shown).",
        }),
        truncated: z.boolean(),
      }),
    ),
    ...errorResponses(400, 401, 403, 429),
  },
});

/** The privacy routes, mounted under `/api/v1/server`. */
export function privacyApi(deps: Deps): OpenAPIHono<ServerEnv> {
  const app = apiApp<ServerEnv>();
  const auth = (scope: "admin" | "read", route: string) => keyAuth(deps, { scope, route });

  app.openapi(
    { ...eraseRoute, middleware: [auth("admin", "server_privacy_erase"), jsonBody()] },
    async (c) => {
      const key = c.get("auth");
      const job = await startErase(deps, {
        workspaceId: key.workspace.id,
        modes: [key.mode],
        email: c.req.valid("json").email,
        actor: keyActor(key),
        ip: clientIp(c, deps.config.trustProxy),
      });
      return c.json({ job: jobView(job) }, 202);
    },
  );

  app.openapi({ ...jobRoute, middleware: [auth("admin", "server_privacy_job")] }, async (c) => {
    const id = c.req.valid("param").id;
    const key = c.get("auth");
    const job = await requirePrivacyJob(deps, key.workspace.id, [key.mode], id);
    c.header("Cache-Control", "no-store");
    return c.json({ job: jobView(job) }, 200);
  });

  app.openapi(
    { ...exportRoute, middleware: [auth("read", "server_privacy_export")] },
    async (c) => {
      const { email } = c.req.valid("query");
      const key = c.get("auth");
      const result = await exportByEmail(deps, key.workspace.id, key.mode, email);
      await audit(deps, {
        workspaceId: key.workspace.id,
        action: "export.privacy",
        actor: keyActor(key),
        ip: clientIp(c, deps.config.trustProxy),
        details: {
          count: result.submissions.length,
          ...(result.drafts.length ? { drafts: result.drafts.length } : {}),
        },
      });
      c.header("Cache-Control", "no-store");
      return c.json({ email, ...result }, 200);
    },
  );

  return app;
}
