/**
 * Drafts (saved progress) on the public API: start, save, read, resume link. The resume
 * token is the credential (`Authorization: Bearer <resume_token>`); a wrong or expired one
 * is the draft's one 404. Rate limited per client IP (`drafts`). Logic in lib/drafts/.
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { apiApp, PUBLIC, RESUME_TOKEN } from "@/lib/api/app.ts";
import {
  errorResponses,
  formIdParams,
  idParam,
  jsonRequest,
  jsonResponse,
} from "@/lib/api/schemas.ts";
import { draftBodySchema } from "@/lib/drafts/check.ts";
import { sendResumeLink } from "@/lib/drafts/resume_mail.ts";
import { draftView, requireDraft, saveDraft, startDraft } from "@/lib/drafts/store.ts";
import { bearerToken } from "@/lib/drafts/token.ts";
import { requireLiveForm } from "@/lib/forms/forms.ts";
import { type AppEnv, limitedByClientIp } from "@/lib/http/http.ts";
import { jsonBody } from "@/lib/http/validation.ts";
import { eraseBodySchema } from "@/lib/privacy/erase.ts";

const TAG = ["Drafts"];
const EXAMPLE = { data: { name: "Ada" }, step: 1 };
const draftParams = formIdParams.extend({
  draft_id: idParam("draft_id", "drf_01jd8y5x2n3k4m5p6q7r8s9t0v", "Draft not found."),
});

const draftSchema = z.object({
  data: z.record(z.string(), z.unknown()),
  step: z.number().int().nullable(),
  updated_at: z.string(),
  expires_at: z.string(),
}).openapi("Draft");

const startedSchema = z.object({
  draft_id: z.string(),
  resume_token: z.string().meta({ description: "The draft's credential, shown only here." }),
  expires_at: z.string(),
}).openapi("DraftStarted");

const startRoute = createRoute({
  method: "post",
  path: "/forms/p/{id}/drafts",
  operationId: "startDraft",
  security: PUBLIC,
  tags: TAG,
  summary: "Start a draft",
  description: "Saves a visitor's progress on a drafts-enabled form. Values are checked for " +
    "types and limits, never for `required`; file fields are left out (a draft never holds " +
    "files). A draft is never a submission: it is not notified nor counted, and it is " +
    "removed when a submission names it (`draft_id`, or `_draft_id` in a form post) or when " +
    "it expires. 60 a minute per client IP (all draft routes together).",
  request: { params: formIdParams, body: jsonRequest(draftBodySchema, EXAMPLE) },
  responses: {
    201: jsonResponse("Started: keep the token, it is shown once.", startedSchema),
    ...errorResponses(400, 403, 404, 405, 413, 415, 422, 423, 429, 503),
  },
});

const saveRoute = createRoute({
  method: "put",
  path: "/forms/p/{id}/drafts/{draft_id}",
  operationId: "saveDraft",
  security: RESUME_TOKEN,
  tags: TAG,
  summary: "Save a draft",
  description: "Replaces the draft's values (and step, when sent). A wrong or expired token " +
    "is 404.",
  request: {
    params: draftParams,
    body: jsonRequest(draftBodySchema, EXAMPLE),
  },
  responses: {
    200: jsonResponse("Saved.", draftSchema),
    ...errorResponses(400, 403, 404, 413, 415, 422, 423, 429, 503),
  },
});

const readRoute = createRoute({
  method: "get",
  path: "/forms/p/{id}/drafts/{draft_id}",
  operationId: "readDraft",
  security: RESUME_TOKEN,
  tags: TAG,
  summary: "Read a draft",
  description: "The draft's values and step. A wrong or expired token is 404.",
  request: { params: draftParams },
  responses: {
    200: jsonResponse("The draft.", draftSchema),
    ...errorResponses(404, 423, 429),
  },
});

const resumeLinkRoute = createRoute({
  method: "post",
  path: "/forms/p/{id}/drafts/{draft_id}/resume-link",
  operationId: "sendDraftResumeLink",
  security: RESUME_TOKEN,
  tags: TAG,
  summary: "Email a resume link",
  description: "Mails `email` a link to the hosted page with the draft loaded " +
    "(`/f/<id>?resume=<token>`). At most one a draft per 10 minutes; the workspace's and " +
    "the instance's hourly caps on mail visitors trigger apply (429).",
  request: {
    params: draftParams,
    body: jsonRequest(eraseBodySchema, { email: "ada@example.com" }),
  },
  responses: {
    202: jsonResponse("The mail is on its way.", z.object({ sent: z.literal(true) })),
    ...errorResponses(400, 403, 404, 413, 415, 423, 429, 503),
  },
});

/** The drafts sub-app, mounted at `/api/v1`. */
export function draftsApi(deps: Deps): OpenAPIHono<AppEnv> {
  const app = apiApp<AppEnv>();
  const limited = limitedByClientIp(deps, "drafts");
  const token = (c: Context<AppEnv>) => bearerToken(c.req.header("authorization"));

  app.openapi({ ...startRoute, middleware: [limited, jsonBody()] }, async (c) => {
    const { form } = await requireLiveForm(deps, c.req.valid("param").id);
    return c.json(await startDraft(deps, form, c.req.valid("json")), 201);
  });

  app.openapi({ ...saveRoute, middleware: [limited, jsonBody()] }, async (c) => {
    const { id, draft_id } = c.req.valid("param");
    const { form } = await requireLiveForm(deps, id);
    return c.json(await saveDraft(deps, form, draft_id, token(c), c.req.valid("json")), 200);
  });

  app.openapi({ ...readRoute, middleware: [limited] }, async (c) => {
    const { id, draft_id } = c.req.valid("param");
    const { form } = await requireLiveForm(deps, id);
    c.header("Cache-Control", "no-store");
    return c.json(draftView((await requireDraft(deps, form, draft_id, token(c))).value), 200);
  });

  app.openapi({ ...resumeLinkRoute, middleware: [limited, jsonBody()] }, async (c) => {
    const { id, draft_id } = c.req.valid("param");
    const target = await requireLiveForm(deps, id);
    await sendResumeLink(deps, target, draft_id, token(c), c.req.valid("json").email);
    return c.json({ sent: true as const }, 202);
  });

  return app;
}
