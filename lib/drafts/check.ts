/**
 * What a draft may hold: the form's own checks of types and limits, minus `required` (a
 * draft is unfinished by nature), and the size cap of a submission.
 * @module
 */
import { z } from "@hono/zod-openapi";
import { errors } from "@/lib/errors.ts";
import { validateData } from "@/lib/forms/validator.ts";
import { isPlainObject } from "@/lib/http/body.ts";
import { type Form, isFileType } from "@/lib/schemas.ts";
import { checkStoredSize } from "@/lib/submissions/parse.ts";

/** Steps a draft may name (1-based positions; a form has at most 50 steps). */
export const MAX_STEP = 50;

/** The body of a draft save: `{data, step?}`. */
export const draftBodySchema = z.object({
  data: z.custom<Record<string, unknown>>(isPlainObject, {
    error: "must be a JSON object of field values",
  }).openapi({ type: "object", additionalProperties: true, description: "Values by field name." }),
  step: z.number().int().min(1).max(MAX_STEP).nullable().optional().meta({
    description: "The step the visitor is on (its 1-based position), for multi-step forms.",
  }),
}).strict();

/** A parsed draft body. */
export type DraftBody = z.infer<typeof draftBodySchema>;

/**
 * The values a draft stores: each present value checked as a submit checks it, except that
 * nothing is required; a wrong type or limit is the submit's 422, too much data its 413.
 * A draft never holds files: a file field's value (an upload's reference, which lives only
 * an hour unless a submission attaches it) is left out, not refused.
 */
export function draftValues(form: Form, data: Record<string, unknown>): Record<string, unknown> {
  const files = form.fields.filter((f) => isFileType(f.type)).map((f) => f.name);
  if (files.some((name) => Object.hasOwn(data, name))) {
    data = Object.fromEntries(Object.entries(data).filter(([k]) => !files.includes(k)));
  }
  const { errors: found, values } = validateData(form, data, "json");
  const wrong = found.filter((e) => e.type !== "required");
  if (wrong.length) throw errors.validation(wrong);
  checkStoredSize(values, {});
  return values;
}
