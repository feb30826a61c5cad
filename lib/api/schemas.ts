/**
 * The documented shapes of the `/api/v1` answers (and the path parameters): what
 * routes/api/* declare with `createRoute`, so the OpenAPI document and the tests that check
 * real answers against it read the same zod schemas. Request bodies and queries are the
 * schemas lib validates with (lib/submissions/parse.ts, lib/notify/webhook_edits.ts, ...).
 * @module
 */
import { z } from "@hono/zod-openapi";
import { ID_PATTERN, MAX_ID_LENGTH } from "@/lib/http/validation.ts";
import { EVENT_TYPES } from "@/lib/notify/events.ts";
import { FIELD_TYPES } from "@/lib/schemas.ts";

/** A form reference on the Server Data API: a public id or `key:<slug>`. */
const SERVER_FORM_REF = /^(?:key:[a-z0-9][a-z0-9_-]{0,63}|[A-Za-z0-9_-]{1,100})$/;

/**
 * A path parameter holding an id the service issued: an over-long or odd one is the 404 a
 * missing resource gets, with `notFound` as its message.
 */
export function idParam(name: string, example: string, notFound: string) {
  return z.string().regex(ID_PATTERN, { error: notFound })
    .openapi({ param: { name, in: "path" }, example, maxLength: MAX_ID_LENGTH });
}

/** `{id}`: a form's public id. */
export const formIdParams = z.object({ id: idParam("id", "fAbC123xYz456", "Form not found.") });

/** `{id}` on the Server Data API: a form's public id, or `key:<slug>` (its key). */
export const serverFormIdParams = z.object({
  id: z.string().regex(SERVER_FORM_REF, { error: "Form not found." }).openapi({
    param: { name: "id", in: "path" },
    example: "fAbC123xYz456",
    description: "The form's public id, or `key:<slug>` to name it by its key.",
    maxLength: MAX_ID_LENGTH,
  }),
});

/** The JSON body of every error answer (SPEC "Errors"). */
export const errorBody = z.looseObject({
  error: z.string().meta({ description: "Human-readable message." }),
  code: z.string().optional().meta({ description: "Machine-readable code." }),
  errors: z.array(z.object({
    field: z.string(),
    fieldId: z.string(),
    message: z.string(),
    type: z.string(),
  })).optional().meta({ description: "422 only: one item per failed field rule." }),
  schema_version: z.number().int().optional().meta({
    description: "409 schema_changed: the form's current version.",
  }),
  request_id: z.string().optional(),
}).openapi("Error", {
  example: {
    error: "The submission has invalid fields.",
    code: "validation_failed",
    errors: [{
      field: "email",
      fieldId: "fld_email",
      message: "email must be a valid email address.",
      type: "email",
    }],
    request_id: "req_3kTq9ZxW1bVn7YpLmD2c",
  },
});

const ERROR_TEXT: Record<number, string> = {
  400: "Malformed request (bad JSON, unknown or missing parameters, bad types).",
  401: "Missing or invalid API key.",
  403: "Refused: CAPTCHA, spam, origin, plan, or the key lacks the scope.",
  404: "Not found (also: an id that cannot exist, or a suspended workspace's form).",
  405: "Another method than this route's (a `GET` on a POST-only route): `Allow: POST`.",
  408: "The request body did not arrive in time.",
  411: "`Content-Length` is required.",
  409: "Idempotency key reused with another payload, or the form's schema changed.",
  413: "The request body is too large.",
  415: "Unsupported Content-Type.",
  422: "Field-level validation failure: `errors` lists the fields.",
  423: "The form is not accepting submissions.",
  429: "Rate limit or quota exceeded (no Retry-After: back off).",
  503: "Busy, or the virus scanner is unreachable: retry later (a submit with the same " +
    "Idempotency-Key).",
};

/** The error answers of a route, each with the error body. */
export function errorResponses(...statuses: (keyof typeof ERROR_TEXT)[]) {
  return Object.fromEntries(statuses.map((s) => [
    s,
    s === 405 ? METHOD_NOT_ALLOWED : {
      description: ERROR_TEXT[s],
      content: { "application/json": { schema: errorBody } },
    },
  ]));
}

/** The 405 of a POST-only route: `Allow: POST`; JSON, or an HTML page for a browser. */
const METHOD_NOT_ALLOWED = {
  description: ERROR_TEXT[405],
  headers: { Allow: header("The one method the route takes.", "POST") },
  content: {
    "application/json": { schema: errorBody },
    "text/html": { schema: { type: "string" as const } },
  },
};

/**
 * The error answers of a route that also takes HTML form posts: JSON, or the HTML page a
 * browser is shown (the form again with its errors, or an error page with a link back).
 */
export function formPostErrorResponses(...statuses: (keyof typeof ERROR_TEXT)[]) {
  return Object.fromEntries(statuses.map((s) => [s, {
    description: `${ERROR_TEXT[s]} An HTML form post gets an HTML page with the same status.`,
    content: {
      "application/json": { schema: errorBody },
      "text/html": { schema: { type: "string" as const } },
    },
  }]));
}

/** A response header: what it says, a real value, and whether every such answer has it. */
export function header(description: string, example: string, required = true) {
  return { description, required, schema: { type: "string" as const, example } };
}

/** A required JSON request body: the schema the route validates with, and an example. */
export function jsonRequest<S extends z.ZodType>(schema: S, example: unknown) {
  return { required: true, content: { "application/json": { schema, example } } };
}

/** A JSON success answer. */
export function jsonResponse<S extends z.ZodType>(description: string, schema: S) {
  return { description, content: { "application/json": { schema } } };
}

/** Errors every key-authenticated route can answer. */
export const KEY_ERRORS = [401, 403, 404, 429] as const;

/** The `pagination` object of every list. */
export const paginationSchema = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  total_pages: z.number().int(),
  has_more: z.boolean(),
}).openapi("Pagination");

/** One field of a form. */
export const fieldSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: z.enum(FIELD_TYPES),
  required: z.boolean().optional(),
  label: z.string().optional(),
  when: z.unknown().optional().meta({
    description:
      "JSON Logic: the field is shown, required and stored only while this holds; a value sent while it does not is dropped.",
  }),
  compute: z.unknown().optional().meta({
    description: "JSON Logic: the value the service computes and stores (a sent value is ignored).",
  }),
  default: z.unknown().optional().meta({
    description: "The value used when `data` does not hold the field.",
  }),
}).openapi("Field");

/** One step of a multi-step form. */
export const stepSchema = z.object({
  title: z.string(),
  fields: z.array(z.string()),
  when: z.unknown().optional().meta({
    description: "JSON Logic: the step is shown while this holds.",
  }),
}).openapi("Step");

/** `GET /forms/p/{id}`: what a page needs to render and submit the form. */
export const publicSchemaBody = z.object({
  form: z.object({
    public_id: z.string(),
    name: z.string(),
    fields: z.array(fieldSchema),
    schema_version: z.number().int(),
    accepting: z.boolean(),
    honeypot: z.string().nullable(),
    steps: z.array(stepSchema).optional(),
    default_language: z.string().meta({ description: "The language of the form's own texts." }),
    translations: z.record(z.string(), z.looseObject({})).optional().meta({
      description: "The form's texts per language: `{form: {title, submit, success}, fields}`.",
    }),
    drafts: z.object({ enabled: z.literal(true), ttl_days: z.number().int() }).optional()
      .meta({ description: "Present when the form keeps visitors' drafts." }),
  }),
  captcha: z.object({ provider: z.string(), siteKey: z.string().nullable() }).nullable(),
}).openapi("PublicSchema");

/** A form as the Server Data API shows it (no CAPTCHA secret). */
export const formSchema = z.looseObject({
  public_id: z.string(),
  key: z.string().optional().meta({ description: "The form's slug, unique in the workspace." }),
  name: z.string(),
  fields: z.array(fieldSchema),
  captcha: z.looseObject({ provider: z.string(), siteKey: z.string().optional() }).nullable(),
  honeypot: z.string().nullable(),
  allowed_origins: z.array(z.string()),
  accepting: z.boolean(),
  redirect: z.object({ success: z.string().optional(), error: z.string().optional() }),
  schema_version: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
}).openapi("Form");

/**
 * A stored file as a submission lists it: its reference from the field's value (only `path`
 * when no field holds it any more).
 */
const fileRefSchema = z.looseObject({
  path: z.string(),
  field: z.string().optional(),
  originalFilename: z.string().optional(),
  mimeType: z.string().optional(),
  sizeBytes: z.number().int().optional(),
});

/** One submission. */
export const submissionSchema = z.object({
  id: z.string(),
  form_id: z.string(),
  fields: z.record(z.string(), z.unknown()),
  metadata: z.record(z.string(), z.unknown()),
  status: z.enum(["completed", "suspicious", "spam"]),
  created_at: z.string(),
  submission_number: z.number().int(),
  files: z.array(fileRefSchema).optional(),
}).openapi("Submission");

/** `201` of a submit. */
export const submitResultSchema = z.object({
  success: z.literal(true),
  submission_id: z.string(),
  submission_number: z.number().int(),
}).openapi("SubmitResult");

/** A form's analytics. */
export const analyticsSchema = z.object({
  views: z.number().int(),
  starts: z.number().int(),
  submissions: z.number().int(),
  completion_rate: z.number().nullable(),
  from: z.string(),
  to: z.string(),
  retention_days: z.number().int(),
  drafts: z.number().int().meta({ description: "Live drafts: started, not submitted." }),
  draft_steps: z.array(z.object({ step: z.number().int(), drafts: z.number().int() })).meta({
    description: "Live drafts by the furthest step (1-based position) they reached.",
  }),
  draft_fields: z.record(z.string(), z.number().int()).meta({
    description: "Live drafts holding a value, by field name.",
  }),
  daily: z.array(z.object({
    date: z.string(),
    views: z.number().int(),
    starts: z.number().int(),
    submissions: z.number().int(),
  })),
  steps: z.array(z.object({
    step: z.number().int().openapi({ description: "The step's 1-based position." }),
    reached: z.number().int().openapi({
      description: "Distinct sessions shown the step (each counted once a day).",
    }),
  })).optional().openapi({ description: "Present when the form has steps, one entry a step." }),
}).openapi("Analytics");

/** A visitor's draft as the Server Data API lists it (never its resume token). */
export const draftListItemSchema = z.object({
  id: z.string(),
  data: z.record(z.string(), z.unknown()),
  step: z.number().int().nullable(),
  furthest_step: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  expires_at: z.string(),
}).openapi("DraftListItem");

/** A webhook endpoint (its secret only in create and rotate answers). */
export const webhookSchema = z.looseObject({
  id: z.string(),
  mode: z.enum(["live", "test"]),
  url: z.string(),
  events: z.array(z.enum(EVENT_TYPES)),
  forms: z.array(z.string()),
  enabled: z.boolean(),
  failing_since: z.string().nullable(),
  disabled_reason: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
}).openapi("Webhook");

/**
 * The endpoint with its signing secret (`whsec_...`), shown once; Slack, Discord and Teams
 * endpoints have none (their URL is the credential).
 */
export const webhookWithSecretSchema = webhookSchema.extend({
  secret: z.string().optional().meta({
    description: "`whsec_...`: the signing secret of a `standard` endpoint.",
    example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  }),
})
  .openapi("WebhookWithSecret");

/** One delivery attempt of an endpoint. */
export const deliverySchema = z.object({
  id: z.string(),
  at: z.string(),
  event_id: z.string(),
  msg_id: z.string(),
  event: z.string(),
  submission_id: z.string().optional().describe("The submission the event is about."),
  attempt: z.number().int(),
  status: z.number().int().nullable(),
  ok: z.boolean(),
  latency_ms: z.number(),
  response: z.string(),
  error: z.string().optional(),
  outcome: z.enum(["retrying", "delivered", "failed", "disabled"]),
  next_attempt_at: z.string().optional().describe(
    "When the event is attempted next (on a `retrying` attempt).",
  ),
  manual: z.boolean().optional(),
}).openapi("Delivery");

/** A resend or test send, queued. */
export const queuedSchema = z.object({ queued: z.literal(true), event_id: z.string() });

/** An erase-by-email job. */
export const privacyJobSchema = z.object({
  id: z.string(),
  kind: z.string(),
  status: z.enum(["running", "done"]),
  deleted: z.number().int(),
  forms: z.record(z.string(), z.number()),
  created_at: z.string(),
  finished_at: z.string().nullable(),
}).openapi("PrivacyJob");

/** One audit log entry. */
export const auditEventSchema = z.looseObject({
  id: z.string(),
  action: z.string(),
  actor: z.string(),
  ip: z.string().nullable(),
  at: z.string(),
  details: z.record(z.string(), z.unknown()),
}).openapi("AuditEvent");

/** `upload-url`'s answer: where to PUT the file and the reference to submit. */
export const uploadGrantSchema = z.object({
  path: z.string().meta({
    description: "The file's reference: submit `{\"path\": path}` as the field's value.",
    example: "fAbC123xYz456/01jd8y5x2n3k4m5p6q7r8s9t0vAbCdEf",
  }),
  uploadUrl: z.string().meta({ description: "Where to PUT the bytes." }),
  uploadToken: z.string().meta({ description: "The grant's id (never part of a submission)." }),
  storageToken: z.string().optional().meta({
    description: "With local storage: send as `Authorization: Bearer <storageToken>`.",
  }),
}).openapi("UploadGrant");
