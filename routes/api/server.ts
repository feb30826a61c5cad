/**
 * The Server Data API (SPEC part 4), mounted at `/api/v1/server`. Every route takes a
 * secret key: the workspace and the data mode (live/test) come from the key, never from
 * the client. Routes stay thin; the queries live in lib/.
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { formAnalytics } from "@/lib/forms/analytics.ts";
import type { Deps } from "@/lib/deps.ts";
import { apiApp, BEARER } from "@/lib/api/app.ts";
import {
  analyticsSchema,
  draftListItemSchema,
  errorResponses,
  formSchema,
  idParam,
  jsonRequest,
  jsonResponse,
  KEY_ERRORS,
  paginationSchema,
  serverFormIdParams,
  submissionSchema,
} from "@/lib/api/schemas.ts";
import { formListQuerySchema, listForms, requireOwnForm } from "@/lib/forms/query.ts";
import { formView } from "@/lib/forms/forms.ts";
import { jsonBody } from "@/lib/http/validation.ts";
import { deleteBodySchema, deleteSubmissions, requireIdCount } from "@/lib/submissions/delete.ts";
import {
  listSubmissions,
  requireSubmission,
  submissionListQuerySchema,
  submissionView,
} from "@/lib/submissions/query.ts";
import { signFileDownload } from "@/lib/uploads/downloads.ts";
import { listDrafts } from "@/lib/drafts/summary.ts";
import { pageQuerySchema } from "@/lib/http/pagination.ts";
import { auditDelete, keyAuth, type ServerEnv } from "./_key_auth.ts";

const TAG = ["Forms and submissions"];
const base = { tags: TAG, security: BEARER };
const submissionParams = serverFormIdParams.extend({
  sid: idParam("sid", "sub_01jd8y5x2n3k4m5p6q7r8s9t0v", "Submission not found."),
});

const listFormsRoute = createRoute({
  ...base,
  method: "get",
  path: "/forms",
  operationId: "listForms",
  summary: "List forms",
  description: "The key's workspace's forms, paginated, searchable by name. Scope `read`.",
  request: { query: formListQuerySchema },
  responses: {
    200: jsonResponse(
      "A page of forms.",
      z.object({ forms: z.array(formSchema), pagination: paginationSchema }),
    ),
    ...errorResponses(400, ...KEY_ERRORS),
  },
});

const getFormRoute = createRoute({
  ...base,
  method: "get",
  path: "/forms/{id}",
  operationId: "getForm",
  summary: "Get a form",
  description: "One form's definition (no CAPTCHA secret). Scope `read`.",
  request: { params: serverFormIdParams },
  responses: {
    200: jsonResponse("The form.", z.object({ form: formSchema })),
    ...errorResponses(...KEY_ERRORS),
  },
});

const listSubmissionsRoute = createRoute({
  ...base,
  method: "get",
  path: "/forms/{id}/submissions",
  operationId: "listSubmissions",
  summary: "List submissions",
  description: "Newest first, of the key's mode (live or test), filtered by status, search " +
    "text and date range. Scope `read`.",
  request: { params: serverFormIdParams, query: submissionListQuerySchema },
  responses: {
    200: jsonResponse(
      "A page of submissions.",
      z.object({ submissions: z.array(submissionSchema), pagination: paginationSchema }),
    ),
    ...errorResponses(400, ...KEY_ERRORS),
  },
});

const getSubmissionRoute = createRoute({
  ...base,
  method: "get",
  path: "/forms/{id}/submissions/{sid}",
  operationId: "getSubmission",
  summary: "Get a submission",
  description: "One submission of the key's mode. Scope `read`.",
  request: { params: submissionParams },
  responses: {
    200: jsonResponse("The submission.", z.object({ submission: submissionSchema })),
    ...errorResponses(...KEY_ERRORS),
  },
});

const deleteSubmissionsRoute = createRoute({
  ...base,
  method: "delete",
  path: "/forms/{id}/submissions",
  operationId: "deleteSubmissions",
  summary: "Delete submissions",
  description: "Deletes up to 500 submissions by id (with their files); ids not found are " +
    "listed. Scope `admin`. Audited.",
  request: {
    params: serverFormIdParams,
    body: jsonRequest(deleteBodySchema, { ids: ["sub_01jd8y5x2n3k4m5p6q7r8s9t0v"] }),
  },
  responses: {
    200: jsonResponse(
      "What was deleted.",
      z.object({ deleted: z.number().int(), not_found: z.array(z.string()) }),
    ),
    ...errorResponses(400, 413, 415, ...KEY_ERRORS),
  },
});

const analyticsRoute = createRoute({
  ...base,
  method: "get",
  path: "/forms/{id}/analytics",
  operationId: "getFormAnalytics",
  summary: "Get a form's analytics",
  description: "Views, starts, submissions and completion rate, in total and by day, over " +
    "the workspace's retention window. Scope `read`.",
  request: { params: serverFormIdParams },
  responses: {
    200: jsonResponse("The analytics.", z.object({ analytics: analyticsSchema })),
    ...errorResponses(...KEY_ERRORS),
  },
});

const listDraftsRoute = createRoute({
  ...base,
  method: "get",
  path: "/forms/{id}/drafts",
  operationId: "listDrafts",
  summary: "List drafts",
  description: "Visitors' saved progress not (yet) submitted and not expired, newest first, " +
    "with the furthest step each reached; resume tokens are never shown. Drafts come from " +
    "pages, so they are live data: a test key lists none. Scope `read`.",
  request: { params: serverFormIdParams, query: pageQuerySchema },
  responses: {
    200: jsonResponse(
      "A page of drafts.",
      z.object({ drafts: z.array(draftListItemSchema), pagination: paginationSchema }),
    ),
    ...errorResponses(400, ...KEY_ERRORS),
  },
});

const downloadRoute = createRoute({
  ...base,
  method: "get",
  path: "/forms/{id}/files/download",
  operationId: "getFileDownloadLink",
  summary: "Get a file's download link",
  description: "A short-lived signed URL of a file attached to one of the form's submissions " +
    "(its `path` as the submission lists it). Scope `read`.",
  request: {
    params: serverFormIdParams,
    query: z.object({
      path: z.string().max(200).meta({
        description: "The file's `path`, as the submission's `files` list it.",
        example: "fAbC123xYz456/01jd8y5x2n3k4m5p6q7r8s9t0vAbCdEf",
      }),
    }),
  },
  responses: {
    200: jsonResponse("The link.", z.object({ url: z.string(), expires_at: z.string() })),
    ...errorResponses(400, ...KEY_ERRORS),
  },
});

/** The Server Data API sub-app, mounted at `/api/v1/server`. */
export function serverApi(deps: Deps): OpenAPIHono<ServerEnv> {
  const app = apiApp<ServerEnv>();
  const read = (route: string) => [keyAuth(deps, { scope: "read", route })];
  /** The key's own form or the one 404 (the workspace comes from the key). */
  const ownForm = (c: Context<ServerEnv>) =>
    requireOwnForm(deps, c.get("auth").workspace.id, c.req.param("id") ?? "");

  app.openapi({ ...listFormsRoute, middleware: read("server_forms") }, async (c) => {
    return c.json(await listForms(deps, c.get("auth").workspace.id, c.req.valid("query")), 200);
  });

  app.openapi({ ...getFormRoute, middleware: read("server_form") }, async (c) => {
    return c.json({ form: formView(await ownForm(c)) }, 200);
  });

  app.openapi({ ...listSubmissionsRoute, middleware: read("server_submissions") }, async (c) => {
    const form = await ownForm(c);
    const q = c.req.valid("query");
    return c.json(await listSubmissions(deps, form, c.get("auth").mode, q), 200);
  });

  app.openapi({ ...getSubmissionRoute, middleware: read("server_submission") }, async (c) => {
    const form = await ownForm(c);
    const sid = c.req.valid("param").sid;
    const s = await requireSubmission(deps, form, c.get("auth").mode, sid);
    return c.json({ submission: submissionView(s) }, 200);
  });

  app.openapi(
    {
      ...deleteSubmissionsRoute,
      middleware: [keyAuth(deps, { scope: "admin", route: "server_delete" }), jsonBody()],
    },
    async (c) => {
      const form = await ownForm(c);
      const ids = requireIdCount(c.req.valid("json").ids);
      const result = await deleteSubmissions(deps, form, c.get("auth").mode, ids, { notify: true });
      await auditDelete(deps, c, form.id, result.deleted);
      return c.json(result, 200);
    },
  );

  app.openapi({ ...analyticsRoute, middleware: read("server_analytics") }, async (c) => {
    const form = await ownForm(c);
    const { workspace, mode } = c.get("auth");
    return c.json({ analytics: await formAnalytics(deps, form, workspace, mode) }, 200);
  });

  app.openapi({ ...listDraftsRoute, middleware: read("server_drafts") }, async (c) => {
    const form = await ownForm(c);
    return c.json(await listDrafts(deps, form, c.get("auth").mode, c.req.valid("query")), 200);
  });

  app.openapi({ ...downloadRoute, middleware: read("server_download") }, async (c) => {
    const form = await ownForm(c);
    c.header("Cache-Control", "no-store");
    const path = c.req.valid("query").path;
    return c.json(await signFileDownload(deps, c.get("auth"), form.id, path), 200);
  });

  return app;
}
