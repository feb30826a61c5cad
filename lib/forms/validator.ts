/**
 * The server's use of the rules module (lib/rules): a form's `data` checked with RE2 as the
 * pattern engine, answering SPEC part 7's `{field, fieldId, message, type}` items and the
 * values to store.
 * @module
 */
import type { FieldError } from "@/lib/errors.ts";
import { evaluateForm, type MessageFormatter, type ValueSource } from "@/lib/rules/mod.ts";
import type { Form } from "@/lib/schemas.ts";
import { matchesPattern } from "./patterns.ts";

export type { ValueSource };

/** Result of validating one submission's `data`. */
export interface ValidationResult {
  errors: FieldError[];
  /** The values to store: shown fields, normalised, computed ones by the rules, defaults applied. */
  values: Record<string, unknown>;
}

/** Validates `data` against the form's rules. The honeypot key is allowed and ignored. */
export function validateData(
  form: Form,
  data: Record<string, unknown>,
  source: ValueSource = "json",
  options: { messages?: MessageFormatter; step?: number } = {},
): ValidationResult {
  const result = evaluateForm(form, data, { source, match: matchesPattern, ...options });
  return {
    errors: result.errors.map(({ field, fieldId, message, type }) => ({
      field,
      fieldId,
      message,
      type,
    })),
    values: result.values,
  };
}
