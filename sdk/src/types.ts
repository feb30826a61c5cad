/**
 * The request and response shapes of the Formwell HTTP API, as the client sends and reads
 * them: one module, so they can be compared with the service's OpenAPI document.
 * @module
 */

/** One item of a 422 `errors` array. */
export interface FieldError {
  /** The field's name (the key in `data`). */
  field: string;
  /** The field's id; `""` for a key that is not a field. */
  fieldId: string;
  message: string;
  /** The rule that failed: `required`, `type`, `pattern`, `unknown_field`, `file`, ... */
  type: string;
}

/** The JSON body of every error answer. */
export interface ErrorBody {
  error: string;
  code?: string;
  errors?: FieldError[];
  /** On `409 schema_changed`: the form's current schema version. */
  schema_version?: number;
  request_id?: string;
}

/** The value of a file-like field in a submission. */
export interface FileRef {
  path: string;
  originalFilename: string;
  mimeType: string;
  sizeBytes: number;
}

/** Field types of a form. */
export type FieldType =
  | "text"
  | "textarea"
  | "email"
  | "url"
  | "tel"
  | "number"
  | "integer"
  | "boolean"
  | "select"
  | "multiselect"
  | "radio"
  | "date"
  | "datetime"
  | "hidden"
  | "file"
  | "image"
  | "signature"
  | "video"
  | "audio";

/** One field of a form's schema. */
export interface FormField {
  id: string;
  name: string;
  type: FieldType;
  required?: boolean;
  label?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  min?: number | string;
  max?: number | string;
  options?: string[];
  allowedTypes?: string[];
  maxSizeMB?: number;
  placeholder?: string;
  help?: string;
  /** JSON Logic: the field is shown, required and stored only while this holds. */
  when?: unknown;
  /** JSON Logic: the value the service computes and stores (a sent value is ignored). */
  compute?: unknown;
  /** The value used when `data` does not hold the field. */
  default?: unknown;
}

/** One step of a multi-step form. */
export interface FormStep {
  title: string;
  fields: string[];
  /** JSON Logic: the step (and its fields) is shown while this holds. */
  when?: unknown;
}

/** `GET /api/v1/forms/p/<id>`. */
export interface PublicSchema {
  form: {
    public_id: string;
    name: string;
    fields: FormField[];
    schema_version: number;
    accepting: boolean;
    honeypot: string | null;
    steps?: FormStep[];
    /** The language of the form's own texts. */
    default_language: string;
    /** The form's texts per language. */
    translations?: Record<string, Record<string, unknown>>;
  };
  captcha: { provider: string; siteKey: string | null } | null;
}

/** The JSON body of `POST /api/v1/submit/p/<id>`. */
export interface SubmitBody {
  data: Record<string, unknown>;
  captcha_token?: string;
  metadata?: Record<string, unknown>;
  schema_version?: number;
}

/** What a submit resolves with (the 201 body without `success`). */
export interface SubmitResult {
  submission_id: string;
  submission_number: number;
}

/** `POST /api/v1/forms/p/<id>/upload-url` request body. */
export interface UploadUrlBody {
  fieldId: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
}

/** `POST /api/v1/forms/p/<id>/upload-url` answer. */
export interface UploadGrant {
  path: string;
  uploadUrl: string;
  uploadToken: string;
  storageToken?: string;
}

/** The `pagination` object of every list. */
export interface Pagination {
  page: number;
  limit: number;
  total: number;
  total_pages: number;
  has_more: boolean;
  scanned?: number;
  truncated?: boolean;
}

/** `page` and `limit` of every list. */
export interface PageQuery {
  page?: number;
  limit?: number;
}

/** A form as the Server Data API shows it (its definition, without CAPTCHA secrets). */
export interface Form {
  public_id: string;
  /** Its slug, unique in the workspace: `key:<slug>` names it wherever a public id does. */
  key?: string;
  name: string;
  fields: FormField[];
  captcha: { provider: string; siteKey?: string } | null;
  honeypot: string | null;
  allowed_origins: string[];
  accepting: boolean;
  redirect: { success?: string; error?: string };
  schema_version: number;
  created_at: string;
  updated_at: string;
  [more: string]: unknown;
}

/** A field as a form definition gives it (its id is kept by name when left out). */
export type FieldDefinition = Omit<FormField, "id"> & { id?: string; [more: string]: unknown };

/** A form definition (the CLI's `--file`, the admin editor's model, formwell.json's forms). */
export interface FormDefinition {
  name: string;
  fields?: FieldDefinition[];
  captcha?: {
    provider: "none" | "turnstile" | "hcaptcha" | "recaptcha" | "altcha";
    siteKey?: string;
    secret?: string;
    [more: string]: unknown;
  } | null;
  honeypot?: string | null;
  allowed_origins?: string[];
  accepting?: boolean;
  redirect?: { success?: string; error?: string };
  retention_days?: number | null;
  store_ip?: "full" | "truncated" | "none";
  store_user_agent?: boolean;
  intro?: string;
  thank_you?: string;
  [more: string]: unknown;
}

/** `POST /api/v1/server/forms`: a definition and an optional key (a slug). */
export interface FormCreate extends FormDefinition {
  key?: string;
}

/** `PATCH /api/v1/server/forms/<id>`: any part of a definition; `null` clears a part. */
export type FormPatch = { [K in keyof FormCreate]?: FormCreate[K] | null };

/** Query of `GET /api/v1/server/forms`. */
export interface FormListQuery extends PageQuery {
  search?: string;
  sortBy?:
    | "created_at"
    | "-created_at"
    | "name"
    | "-name"
    | "updated_at"
    | "-updated_at";
}

/** Submission statuses. */
export type SubmissionStatus = "completed" | "suspicious" | "spam";

/** An attached file as a submission lists it. */
export interface SubmissionFile extends FileRef {
  field: string;
}

/** One submission. */
export interface Submission {
  id: string;
  form_id: string;
  fields: Record<string, unknown>;
  metadata: Record<string, unknown>;
  status: SubmissionStatus;
  created_at: string;
  submission_number: number;
  files?: SubmissionFile[];
}

/** Query of `GET /api/v1/server/forms/<id>/submissions`. */
export interface SubmissionListQuery extends PageQuery {
  status?: SubmissionStatus;
  search?: string;
  range?: "all" | "7d" | "30d" | "90d";
}

/** `DELETE /api/v1/server/forms/<id>/submissions` answer. */
export interface DeleteResult {
  deleted: number;
  not_found: string[];
}

/** `GET /api/v1/server/forms/<id>/analytics` (inside `analytics`). */
export interface Analytics {
  views: number;
  starts: number;
  submissions: number;
  completion_rate: number | null;
  from: string;
  to: string;
  retention_days: number;
  daily: { date: string; views: number; starts: number; submissions: number }[];
  /** Present when the form has steps: distinct sessions that reached each step. */
  steps?: { step: number; reached: number }[];
}

/** `GET /api/v1/server/forms/<id>/files/download?path=` answer. */
export interface DownloadLink {
  url: string;
  expires_at: string;
}

/** Webhook event types. */
export type WebhookEventType =
  | "submission.created"
  | "submission.status_changed"
  | "submission.deleted";

/** A webhook endpoint. */
export interface Webhook {
  id: string;
  url: string;
  events: WebhookEventType[];
  forms: string[];
  enabled: boolean;
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
  [more: string]: unknown;
}

/**
 * An endpoint as create and rotate return it: the only time its secret is shown (a
 * `standard` endpoint's; Slack, Discord and Teams endpoints have none).
 */
export interface WebhookWithSecret extends Webhook {
  secret?: string;
}

/** Create body of a webhook endpoint. */
export interface WebhookCreate {
  url: string;
  events?: WebhookEventType[];
  forms?: string[];
  [more: string]: unknown;
}

/** Update body of a webhook endpoint. */
export interface WebhookUpdate {
  url?: string;
  events?: WebhookEventType[];
  forms?: string[];
  enabled?: boolean;
  [more: string]: unknown;
}

/** One delivery attempt in an endpoint's log. */
export interface WebhookDelivery {
  id: string;
  at: string;
  event_id: string;
  msg_id: string;
  event: string;
  /** The submission the event is about (absent for test events). */
  submission_id?: string;
  attempt: number;
  status: number | null;
  ok: boolean;
  latency_ms: number;
  response: string;
  error?: string;
  outcome: "retrying" | "delivered" | "failed" | "disabled";
  /** When the event is attempted next, on a `retrying` attempt. */
  next_attempt_at?: string;
  manual?: boolean;
}

/** A webhook event's body (what `verifyWebhook` returns once the signature checks). */
export interface WebhookEvent {
  type: WebhookEventType | "webhook.test";
  timestamp: string;
  data: {
    form: { public_id: string; name: string };
    submission: Submission | null;
    previous_status?: SubmissionStatus;
  };
}

/** An erase-by-email job. */
export interface PrivacyJob {
  id: string;
  kind?: string;
  status: "running" | "done";
  deleted: number;
  forms: Record<string, number>;
  created_at?: string;
  finished_at?: string | null;
}

/** `GET /api/v1/server/privacy/export?email=` answer. */
export interface PrivacyExport {
  email: string;
  submissions: (Submission & { form: { public_id: string; name: string } })[];
}

/** One audit log entry. */
export interface AuditEvent {
  id: string;
  action: string;
  actor: string;
  ip: string | null;
  at: string;
  details: Record<string, unknown>;
}

/** Query of `GET /api/v1/server/audit`. */
export interface AuditQuery extends PageQuery {
  action?: string;
}

/** One event of the feed: what a webhook would have carried, in commit order. */
export interface FeedEvent {
  id: string;
  type:
    | "submission.created"
    | "submission.status_changed"
    | "submission.deleted";
  created_at: string;
  data: Record<string, unknown>;
}

/** A page of the event feed; poll again with `after: next_cursor`. */
export interface FeedPage {
  events: FeedEvent[];
  next_cursor: string;
  has_more: boolean;
}

/** Query of `GET /api/v1/server/events`. */
export interface FeedQuery {
  /** The `next_cursor` of the last page read; from the oldest kept event when absent. */
  after?: string;
  limit?: number;
  types?: FeedEvent["type"][];
}
