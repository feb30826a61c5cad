/**
 * The server's use of the rules module (lib/rules): a form's `data` checked with RE2 as the
 * pattern engine, answering SPEC part 7's `{field, fieldId, message, type}` items in the
 * visitor's language and the values to store.
 * @module
 */
import { AppError, errors, type FieldError } from "@/lib/errors.ts";
import {
  evaluateForm,
  formatterFor,
  pickLanguage,
  summaryIn,
  type ValueSource,
} from "@/lib/rules/mod.ts";
import type { Form } from "@/lib/schemas.ts";
import { matchesPattern } from "./patterns.ts";

export type { ValueSource };

/** The languages a request asks for: `?lang=` and `Accept-Language`. */
export interface AskedLanguage {
  query?: string | null;
  accept?: string | null;
}

/** The languages `request` asks for. */
export function askedLanguage(request: Request): AskedLanguage {
  let query: string | null = null;
  try {
    query = new URL(request.url).searchParams.get("lang");
  } catch {
    // A request without a parseable URL asks for nothing.
  }
  return { query: query?.slice(0, 35) ?? null, accept: request.headers.get("accept-language") };
}

/** Result of validating one submission's `data`. */
export interface ValidationResult {
  errors: FieldError[];
  /** The values to store: shown fields, normalised, computed ones by the rules, defaults applied. */
  values: Record<string, unknown>;
  /** The language of the messages (one of the form's). */
  language: string;
}

/**
 * Validates `data` against the form's rules, messages in the language `asked` picks (the
 * form's default without it). The honeypot key is allowed and ignored; `step` (0-based)
 * limits the problems to that step's fields.
 */
export function validateData(
  form: Form,
  data: Record<string, unknown>,
  source: ValueSource = "json",
  options: { asked?: AskedLanguage; step?: number } = {},
): ValidationResult {
  const language = pickLanguage(form, options.asked?.query, options.asked?.accept);
  const result = evaluateForm(form, data, {
    source,
    match: matchesPattern,
    messages: formatterFor(language, form),
    step: options.step,
  });
  return {
    errors: result.errors.map(({ field, fieldId, message, type }) => ({
      field,
      fieldId,
      message,
      type,
    })),
    values: result.values,
    language,
  };
}

/** The 422 for a validation's problems (and `more` found beside them), summary in its language. */
export function invalid(result: ValidationResult, more: FieldError[] = []): AppError {
  return errors.validation([...result.errors, ...more], summaryIn(result.language));
}
