/**
 * Which form edits raise `schema_version` (CONTRACT "form update"): only changes that can
 * change what is valid or stored: a field's type, rules, `required`, `when`, `compute` or
 * `default`, fields added, removed or renamed, and the steps (their fields and
 * conditions). Labels, help text, placeholders, translations, step titles and the order of
 * fields or options never do, so a visitor's open page keeps working after such an edit.
 * @module
 */
import { canonicalJson } from "@/lib/canonical.ts";
import type { Field, Step } from "@/lib/schemas.ts";

/** Display-only properties of a field: editing them never raises `schema_version`. */
export const DISPLAY_ONLY = ["label", "help", "placeholder"] as const;

/** What decides validity: a form's fields and its steps. */
export interface ValidityParts {
  fields: readonly Field[];
  steps?: readonly Step[];
}

/** What validation reads of a form, in a canonical form (field and option order dropped). */
export function validityDigest({ fields, steps }: ValidityParts): string {
  const kept = fields.map((f) => {
    const copy: Record<string, unknown> = { ...f };
    for (const k of DISPLAY_ONLY) delete copy[k];
    if (Array.isArray(copy.options)) copy.options = [...copy.options].sort();
    if (Array.isArray(copy.allowedTypes)) copy.allowedTypes = [...copy.allowedTypes].sort();
    return copy;
  }).sort((a, b) => String(a.name).localeCompare(String(b.name)));
  // A step's title is display; which fields it holds and its condition are not.
  const stepped = (steps ?? []).map((s) => ({ fields: [...s.fields].sort(), when: s.when }));
  return canonicalJson({ fields: kept, steps: stepped });
}

/** Whether going from `before` to `after` can change what is valid (then the version rises). */
export function validityChanged(before: ValidityParts, after: ValidityParts): boolean {
  return validityDigest(before) !== validityDigest(after);
}
