/**
 * The text of a submission the content model reads: what the sender typed. Values of
 * text-like fields in order; a field the form does not declare also gives its key (the
 * sender chose it); the form's own field names are the owner's words and are left out.
 * @module
 */
import type { FieldType } from "@/lib/schemas.ts";
import { type ContentResult, scoreText, type SpamModel } from "./model.ts";

/** Field types whose values are free text a sender wrote or chose. */
const TEXT_TYPES: ReadonlySet<FieldType> = new Set<FieldType>([
  "text",
  "textarea",
  "url",
  "select",
  "multiselect",
  "radio",
]);

/** At most this many characters are gathered (the tokenizer reads no more). */
const MAX_TEXT = 20_000;

/** Builds the text to score from a submission's field values (files and numbers skipped). */
export function submissionText(
  form: { fields: ReadonlyArray<{ name: string; type: FieldType }> },
  fields: Record<string, unknown>,
): { subject?: string; text: string } {
  const declared = new Map(form.fields.map((f) => [f.name, f.type]));
  const lines: string[] = [];
  let subject: string | undefined;
  for (const [name, value] of Object.entries(fields)) {
    const type = declared.get(name);
    if (type !== undefined && !TEXT_TYPES.has(type)) continue;
    const texts = typeof value === "string"
      ? [value]
      : Array.isArray(value)
      ? value.filter((v): v is string => typeof v === "string")
      : [];
    if (!texts.length) continue;
    if (subject === undefined && /^(subject|topic|title)$/i.test(name) && type !== "textarea") {
      subject = texts.join(" ");
      continue;
    }
    lines.push(type === undefined ? `${name}: ${texts.join(" ")}` : texts.join("\n"));
  }
  const text = lines.join("\n").slice(0, MAX_TEXT);
  return subject === undefined ? { text } : { subject, text };
}

/** What the model says about a submission: `scoreText` of its `submissionText`. */
export function scoreSubmission(
  model: SpamModel,
  form: { fields: ReadonlyArray<{ name: string; type: FieldType }> },
  fields: Record<string, unknown>,
): ContentResult {
  return scoreText(model, submissionText(form, fields));
}
