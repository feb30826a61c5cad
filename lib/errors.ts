/**
 * Application errors: lib throws these, one `onError` renders them as `{error, code}`.
 * @module
 */

/**
 * Every machine-readable error code (CONTRACT "Error codes", plus `unavailable`,
 * `request_timeout` and `scanner_unavailable`).
 */
export type ErrorCode =
  | "bad_request"
  | "invalid_api_key"
  | "missing_api_key"
  | "insufficient_scope"
  | "live_key_required"
  | "plan_required"
  | "captcha_required"
  | "captcha_invalid"
  | "spam_detected"
  | "origin_not_allowed"
  | "not_found"
  | "idempotency_key_reused"
  | "schema_changed"
  | "validation_failed"
  | "form_closed"
  | "rate_limited"
  | "quota_exceeded"
  | "payload_too_large"
  | "unsupported_media_type"
  | "too_many_ids"
  | "search_too_broad"
  | "method_not_allowed"
  | "forbidden"
  | "unauthorized"
  | "conflict"
  | "unavailable"
  | "internal_error"
  | "request_timeout"
  | "scanner_unavailable";

/** One item of a 422 `errors` array (SPEC part 7). */
export interface FieldError {
  field: string;
  fieldId: string;
  message: string;
  type: string;
}

/** An error with an HTTP status and a stable code; its message is safe to show. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "AppError";
  }

  /** The JSON body clients receive. */
  toBody(): Record<string, unknown> {
    return { error: this.message, code: this.code, ...this.extra };
  }
}

/** The SPEC's spam message. */
export const SPAM_MESSAGE =
  "This submission was flagged as spam. Please reload the form and try again.";

/** At most this many items in a 422 `errors` array (a hostile body cannot amplify the answer). */
export const MAX_FIELD_ERRORS = 50;

/** The first 50 items; past the cap, also `errors_total` and `errors_truncated: true`. */
function cappedErrors(items: FieldError[]): Record<string, unknown> {
  if (items.length <= MAX_FIELD_ERRORS) return { errors: items };
  return {
    errors: items.slice(0, MAX_FIELD_ERRORS),
    errors_total: items.length,
    errors_truncated: true,
  };
}

/** Builders for the errors used in more than one place; one message per code. */
export const errors = {
  badRequest: (message: string) => new AppError(400, "bad_request", message),
  notFound: (what = "Not found.") => new AppError(404, "not_found", what),
  formNotFound: () => new AppError(404, "not_found", "Form not found."),
  invalidApiKey: () => new AppError(401, "invalid_api_key", "Invalid API key."),
  missingApiKey: () =>
    new AppError(401, "missing_api_key", "Missing API key. Send Authorization: Bearer <API_KEY>."),
  insufficientScope: (scope: string) =>
    new AppError(403, "insufficient_scope", `This API key lacks the '${scope}' scope.`),
  liveKeyRequired: () =>
    new AppError(
      403,
      "live_key_required",
      "This needs a live API key; test keys see test data only.",
    ),
  planRequired: () =>
    new AppError(
      403,
      "plan_required",
      "API keys need the Starter plan or above; an instance owner changes the workspace's plan.",
    ),
  spam: () => new AppError(403, "spam_detected", SPAM_MESSAGE),
  originNotAllowed: () =>
    new AppError(403, "origin_not_allowed", "This origin is not allowed to submit to this form."),
  captchaRequired: () =>
    new AppError(403, "captcha_required", "A CAPTCHA token is required for this form."),
  captchaInvalid: (detail = "CAPTCHA verification failed.") =>
    new AppError(403, "captcha_invalid", detail),
  formClosed: () => new AppError(423, "form_closed", "This form is not accepting submissions."),
  schemaChanged: (current: number) =>
    new AppError(
      409,
      "schema_changed",
      "The form has changed since it was loaded. Reload it and try again.",
      {
        schema_version: current,
      },
    ),
  idempotencyReused: () =>
    new AppError(
      409,
      "idempotency_key_reused",
      "This Idempotency-Key was already used with a different payload.",
    ),
  validation: (items: FieldError[], message = "The submission has invalid fields.") =>
    new AppError(422, "validation_failed", message, cappedErrors(items)),
  rateLimited: () =>
    new AppError(429, "rate_limited", "Too many requests. Slow down and try again later."),
  quotaExceeded: (message: string) => new AppError(429, "quota_exceeded", message),
  payloadTooLarge: (message = "The request body is too large.") =>
    new AppError(413, "payload_too_large", message),
  unsupportedMediaType: (allowed: string[]) =>
    new AppError(
      415,
      "unsupported_media_type",
      `Unsupported Content-Type. Send ${allowed.join(" or ")}.`,
    ),
  requestTimeout: () =>
    new AppError(
      408,
      "request_timeout",
      "The request body did not arrive in time. Send it again.",
    ),
  unavailable: () =>
    new AppError(
      503,
      "unavailable",
      "The service is busy. Retry the request with the same Idempotency-Key.",
    ),
  scannerUnavailable: () =>
    new AppError(
      503,
      "scanner_unavailable",
      "Uploaded files cannot be virus-scanned right now. Try again in a moment.",
    ),
};
