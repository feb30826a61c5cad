/**
 * Which form edits raise `schema_version` (CONTRACT "form update"): only changes that can
 * change what is valid. Labels, help text, placeholders and the order of fields or options
 * never do, so a visitor's open page keeps working after such an edit.
 * @module
 */
import { canonicalJson } from "@/lib/canonical.ts";
import type { Field } from "@/lib/schemas.ts";

/** Display-only properties of a field: editing them never raises `schema_version`. */
export const DISPLAY_ONLY = ["label", "help", "placeholder"] as const;

/** What validation reads of a field list, in a canonical form (field and option order dropped). */
export function validityDigest(fields: readonly Field[]): string {
  const kept = fields.map((f) => {
    const copy: Record<string, unknown> = { ...f };
    for (const k of DISPLAY_ONLY) delete copy[k];
    if (Array.isArray(copy.options)) copy.options = [...copy.options].sort();
    if (Array.isArray(copy.allowedTypes)) copy.allowedTypes = [...copy.allowedTypes].sort();
    return copy;
  }).sort((a, b) => String(a.name).localeCompare(String(b.name)));
  return canonicalJson(kept);
}

/** Whether going from `before` to `after` can change what is valid (then the version rises). */
export function validityChanged(before: readonly Field[], after: readonly Field[]): boolean {
  return validityDigest(before) !== validityDigest(after);
}
