/**
 * Formspree's endpoint conventions on `POST /f/<public_id>` (routes/f/_formspree.ts), so
 * `@formspree/core` and `@formspree/react` work unchanged: JSON with the fields at the top
 * level becomes the form post it stands for, and refusals take Formspree's answer shape
 * `{error, errors: [{field?, code, message}]}` with its codes where one fits.
 * @module
 */
import { AppError, type FieldError } from "@/lib/errors.ts";
import type { Form } from "@/lib/schemas.ts";

/** One error as Formspree's clients read it. */
export interface FormspreeError {
  field?: string;
  code?: string;
  message: string;
}

/** Formspree's error answer. */
export interface FormspreeErrorBody {
  error: string;
  errors: FormspreeError[];
}

const FORM_CODES: Partial<Record<string, string>> = {
  not_found: "FORM_NOT_FOUND",
  form_closed: "INACTIVE",
  spam_detected: "BLOCKED",
  origin_not_allowed: "BLOCKED",
  captcha_required: "BLOCKED",
  captcha_invalid: "BLOCKED",
};

const NUMERIC = new Set(["number", "integer"]);
const TEXT = new Set(["text", "textarea", "tel", "url", "hidden", "select", "radio"]);

/**
 * The form post a flat JSON object stands for: scalars as their text, lists as repeated
 * names, `null` left out. A nested object is a 400 (Formspree takes fields at the top level);
 * an object without a field (names starting with `_` are options) is null: EMPTY.
 */
export function flatJsonAsForm(body: Record<string, unknown>): URLSearchParams | null {
  const params = new URLSearchParams();
  let fields = 0;
  for (const [name, value] of Object.entries(body)) {
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (v === null || v === undefined) continue;
      if (typeof v === "object") {
        throw new AppError(
          400,
          "bad_request",
          `Field '${name}' holds an object: send each field's value at the top level.`,
        );
      }
      params.append(name, String(v));
      if (!name.startsWith("_")) fields++;
    }
  }
  return fields ? params : null;
}

/** The EMPTY refusal: nothing was submitted. */
export function formspreeEmpty(): FormspreeErrorBody {
  const message = "The submission holds no fields.";
  return { error: message, errors: [{ code: "EMPTY", message }] };
}

/**
 * A refusal in Formspree's shape: field errors with Formspree's field codes (a required field
 * is EMPTY when `posted` holds it, else MISSING), other refusals as one form error.
 */
export function formspreeError(
  err: AppError,
  form: Pick<Form, "fields"> | null,
  posted: ReadonlySet<string>,
): FormspreeErrorBody {
  const items = Array.isArray(err.extra.errors) ? err.extra.errors as FieldError[] : [];
  if (!items.length) {
    return {
      error: err.message,
      errors: [{ code: FORM_CODES[err.code] ?? err.code, message: err.message }],
    };
  }
  const typeOf = (name: string) => form?.fields.find((f) => f.name === name)?.type ?? "text";
  return {
    error: err.message,
    errors: items.map((e) => ({
      field: e.field,
      code: fieldCode(e, typeOf(e.field), posted.has(e.field)),
      message: e.message,
    })),
  };
}

/** Formspree's code for a field error, or Formwell's own `type` where none fits. */
function fieldCode(e: FieldError, fieldType: string, posted: boolean): string {
  if (e.type === "required") return posted ? "REQUIRED_FIELD_EMPTY" : "REQUIRED_FIELD_MISSING";
  if (e.type === "email") return "TYPE_EMAIL";
  if (NUMERIC.has(fieldType) && ["type", "min", "max"].includes(e.type)) return "TYPE_NUMERIC";
  if (TEXT.has(fieldType) && e.type === "type") return "TYPE_TEXT";
  return e.type;
}
