/**
 * `FormwellError`: every failure the client reports, with the HTTP status (0 when no
 * answer came), the API's error code, the field errors of a 422 and the request id.
 * @module
 */
import type { ErrorBody, FieldError } from "./types.ts";

/** A refused or failed request. `status` is 0 for a network failure or an abort. */
export class FormwellError extends Error {
  /** HTTP status; 0 when no answer came. */
  readonly status: number;
  /** The API's code (`validation_failed`, `schema_changed`, ...), or `network_error`, `aborted`. */
  readonly code: string;
  /** Field errors (422; also the client-side check after a schema change). */
  readonly errors: FieldError[];
  /** The answer's `X-Request-Id`, for support. */
  readonly requestId?: string;
  /** The answer's JSON body, when it had one. */
  readonly body?: ErrorBody;

  constructor(
    status: number,
    code: string,
    message: string,
    more: { errors?: FieldError[]; requestId?: string; body?: ErrorBody } = {},
  ) {
    super(message);
    this.name = "FormwellError";
    this.status = status;
    this.code = code;
    this.errors = more.errors ?? [];
    this.requestId = more.requestId;
    this.body = more.body;
  }

  /** The field errors keyed by field name (the first message of each field). */
  get fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of this.errors) out[e.field] ??= e.message;
    return out;
  }
}

/** Builds the error of a non-2xx answer from its status, body and request id. */
export function errorFromAnswer(
  status: number,
  body: unknown,
  requestId?: string,
): FormwellError {
  const b = (body && typeof body === "object" ? body : {}) as ErrorBody;
  return new FormwellError(
    status,
    b.code ?? (status >= 500 ? "server_error" : "http_error"),
    typeof b.error === "string" ? b.error : `HTTP ${status}`,
    { errors: Array.isArray(b.errors) ? b.errors : [], requestId, body: b },
  );
}

/** The error of a request the caller aborted. */
export function abortError(): FormwellError {
  return networkError({ name: "AbortError" });
}

/** The error of a request that got no answer. */
export function networkError(cause: unknown): FormwellError {
  const aborted = (cause as Error)?.name === "AbortError";
  return new FormwellError(
    0,
    aborted ? "aborted" : "network_error",
    aborted ? "The request was aborted." : "The service could not be reached.",
  );
}

/**
 * Says in the browser console why the service refused a page for a reason only the form's
 * owner can fix (today: `origin_not_allowed`); other errors are left to the caller.
 */
export function logRefusal(err: FormwellError, publicId: string): void {
  if (err.code !== "origin_not_allowed") return;
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin ??
    "this page's origin";
  console.error(
    `Formwell: form ${publicId} refused this page: its origin ${origin} is not in the ` +
      `form's allowed origins. Add exactly "${origin}" (scheme, www and port as the ` +
      "browser shows them) to the form's allowed origins. Nothing was sent or stored.",
  );
}
