/**
 * Public endpoints (no credential): schema, submit, validate. SPEC part 4.
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Deps } from "@/lib/deps.ts";
import { apiApp, OPTIONAL_BEARER, PUBLIC } from "@/lib/api/app.ts";
import {
  errorResponses,
  formIdParams,
  formPostErrorResponses,
  header,
  jsonRequest,
  jsonResponse,
  publicSchemaBody,
  submitResultSchema,
} from "@/lib/api/schemas.ts";
import { errors } from "@/lib/errors.ts";
import { publicSchema, requireLiveForm } from "@/lib/forms/forms.ts";
import { type AppEnv, limitByClientIp, limitedByClientIp } from "@/lib/http/http.ts";
import { jsonBody } from "@/lib/http/validation.ts";
import { checkStoredSize, submitBodySchema } from "@/lib/submissions/parse.ts";
import { askedLanguage, invalid, validateData } from "@/lib/forms/validator.ts";
import { answerFormPost } from "./_form_post.ts";
import { runSubmit } from "./_submit.ts";

const TAG = ["Public"];
const SUBMIT_EXAMPLE = { data: { email: "ada@example.com", message: "Hello" } };
const ETAG_EXAMPLE = '"v3-mb1x2k9c"';
const ETAG_HEADER = header(
  "The schema's version: send it back as `If-None-Match` to get 304 while it holds.",
  ETAG_EXAMPLE,
);

const schemaRoute = createRoute({
  method: "get",
  path: "/forms/p/{id}",
  operationId: "getFormSchema",
  tags: TAG,
  security: PUBLIC,
  summary: "Get a form's public schema",
  description: "The fields, schema version and CAPTCHA settings a page needs to render the " +
    "form. Answers `ETag`; `If-None-Match` gets 304. 60 a minute per client IP.",
  request: {
    params: formIdParams,
    headers: z.object({
      "if-none-match": z.string().optional().meta({
        description: "The `ETag` of a schema the client holds: 304 while it is current.",
        example: ETAG_EXAMPLE,
      }),
    }),
  },
  responses: {
    200: {
      ...jsonResponse("The form's public schema.", publicSchemaBody),
      headers: { ETag: ETAG_HEADER },
    },
    304: { description: "Not modified (the `ETag` matched).", headers: { ETag: ETAG_HEADER } },
    ...errorResponses(404, 429),
  },
});

const submitRoute = createRoute({
  method: "post",
  path: "/submit/p/{id}",
  operationId: "submitForm",
  tags: TAG,
  security: OPTIONAL_BEARER,
  summary: "Submit a form",
  description: "Stores one submission. Send an `Idempotency-Key` and retry with the same key: " +
    "one submission, never two. A JSON body answers JSON; an HTML form post (urlencoded or " +
    "multipart, with files) answers a 303 redirect, or JSON when it asks for " +
    "`Accept: application/json` and names no `_redirect`. 20 a minute per client IP.",
  request: {
    params: formIdParams,
    headers: z.object({
      "idempotency-key": z.string().max(255).optional().meta({
        description: "One key per logical submission, kept across retries (24 hours): a " +
          "retry answers the first submission's 201 again, with `Idempotent-Replayed: true`.",
        example: "8f14e45f-ceea-467f-a0e6-1b3d5c9a7e21",
      }),
    }),
    body: {
      required: true,
      content: {
        "application/json": { schema: submitBodySchema, example: SUBMIT_EXAMPLE },
        "application/x-www-form-urlencoded": {
          schema: z.record(z.string(), z.string()).meta({
            description: "Field values by name; `_redirect`, `_next`, `_replyto`, `_subject`.",
          }),
        },
        "multipart/form-data": {
          schema: z.record(z.string(), z.unknown()).meta({
            description: "Field values and files by field name.",
          }),
        },
      },
    },
  },
  responses: {
    201: {
      ...jsonResponse("Stored (`Idempotent-Replayed: true` on a replay).", submitResultSchema),
      headers: {
        "Idempotent-Replayed": header(
          "`true` when this answer repeats the first one for the same `Idempotency-Key`.",
          "true",
          false,
        ),
      },
    },
    303: {
      description: "An HTML form post: stored, to the success page (`?submission_id=`); " +
        "refused, to the error target (`?error=<code>`).",
      headers: {
        Location: header(
          "Where the browser goes next.",
          "https://example.com/thanks?submission_id=sub_01jd8y5x2n3k4m5p6q7r8s9t0v",
        ),
      },
    },
    ...formPostErrorResponses(400, 401, 403, 404, 408, 409, 413, 415, 422, 423, 429, 503),
    ...errorResponses(405),
  },
});

/** The query of validate: which step to check, and the messages' language. */
const validateQuerySchema = z.object({
  step: z.coerce.number().int().min(1).max(50).optional().meta({
    description: "Check only this step's fields (1-based position in `steps`).",
  }),
  lang: z.string().max(35).optional().meta({
    description: "The messages' language, when the form has it (e.g. `de`).",
  }),
});

const validateRoute = createRoute({
  method: "post",
  path: "/forms/p/{id}/validate",
  operationId: "validateSubmission",
  tags: TAG,
  security: PUBLIC,
  summary: "Validate without storing",
  description: "Checks a submit body against the form (the same 400, 409 and 422 answers as " +
    "submit) and stores nothing. With `step`, only that step's fields are checked (a " +
    "multi-step page checks each step before the next). Messages follow `lang`, then " +
    "`Accept-Language`, then the form's default language. 30 a minute per client IP.",
  request: {
    params: formIdParams,
    query: validateQuerySchema,
    body: jsonRequest(submitBodySchema, SUBMIT_EXAMPLE),
  },
  responses: {
    200: jsonResponse("The data is valid.", z.object({ valid: z.literal(true) })),
    ...errorResponses(400, 403, 404, 405, 409, 413, 415, 422, 429),
  },
});

/** The public API sub-app, mounted at `/api/v1`. */
export function publicApi(deps: Deps): OpenAPIHono<AppEnv> {
  const app = apiApp<AppEnv>();

  app.openapi(schemaRoute, async (c) => {
    await limitByClientIp(deps, c, "schema");
    const { form } = await requireLiveForm(deps, c.req.valid("param").id);
    const etag = `"v${form.schema_version}-${Date.parse(form.updated_at).toString(36)}"`;
    c.header("ETag", etag);
    c.header("Cache-Control", "no-cache");
    if (c.req.header("if-none-match") === etag) return c.body(null, 304);
    return c.json(publicSchema(form), 200);
  });

  // Submit reads its body itself (./_submit.ts), after the key and by content type, with
  // the streaming caps (a multipart post's depend on the form's fields): a JSON body is
  // validated there by the schema declared here; a form post's values go through the
  // per-form validator built from its fields. Only the path parameter passes the hook.
  const submitJson = submitRoute.request.body.content["application/json"].schema;
  app.openapi(
    { ...submitRoute, request: { params: submitRoute.request.params }, hide: true },
    async (c) => {
      const formId = c.req.valid("param").id;
      const end = await runSubmit(deps, c, formId, { json: submitJson });
      if (end.kind !== "json") return answerFormPost(deps, c, end);
      if (end.outcome.replayed) c.header("Idempotent-Replayed", "true");
      return c.json(end.outcome.body, 201);
    },
  );
  app.openAPIRegistry.registerPath(submitRoute);

  app.openapi(
    { ...validateRoute, middleware: [limitedByClientIp(deps, "validate"), jsonBody()] },
    async (c) => {
      const { form } = await requireLiveForm(deps, c.req.valid("param").id);
      const body = c.req.valid("json");
      if (body.schema_version !== undefined && body.schema_version !== form.schema_version) {
        throw errors.schemaChanged(form.schema_version);
      }
      const { step } = c.req.valid("query");
      const result = validateData(form, body.data, "json", {
        asked: askedLanguage(c.req.raw),
        step: step === undefined ? undefined : step - 1,
      });
      if (result.errors.length) throw invalid(result);
      checkStoredSize(result.values, body.metadata ?? {});
      return c.json({ valid: true as const }, 200);
    },
  );

  return app;
}
