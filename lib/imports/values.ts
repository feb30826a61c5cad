/**
 * An imported cell as a field's value, and a row's time: CSV holds text, fields hold
 * numbers, booleans and lists too. A cell that cannot be the field's type makes its row
 * bad; history is kept as it was otherwise (required, length and pattern rules of today's
 * form are not applied to it).
 * @module
 */
import type { Field } from "@/lib/schemas.ts";

/** A value, or why the cell cannot be one. */
export type Coerced = { value: unknown } | { error: string };

const TRUE = /^(true|yes|on|1|checked)$/i;
const FALSE = /^(false|no|off|0|unchecked)$/i;

/** Formwell's CSV export guards formula-like text with a leading `'`; an import removes it. */
function unguard(text: string): string {
  return /^'[\t\r=+\-@]/.test(text) ? text.slice(1) : text;
}

/** The cell `text` (not empty) as a value of `field`. */
export function coerce(field: Field, raw: string): Coerced {
  const text = unguard(raw);
  switch (field.type) {
    case "number":
    case "integer": {
      const n = Number(text.trim());
      if (text.trim() === "" || !Number.isFinite(n)) {
        return { error: `'${field.name}' is not a number` };
      }
      if (field.type === "integer" && !Number.isInteger(n)) {
        return { error: `'${field.name}' is not a whole number` };
      }
      return { value: n };
    }
    case "boolean":
      if (TRUE.test(text.trim())) return { value: true };
      if (FALSE.test(text.trim())) return { value: false };
      return { error: `'${field.name}' is not yes or no` };
    case "multiselect": {
      const options = field.options ?? [];
      if (options.includes(text)) return { value: [text] };
      return { value: text.split(/\s*[;,|]\s*/).filter(Boolean) };
    }
    default:
      return { value: text };
  }
}

/** A time with a date and a clock but no zone is UTC (Formspree's `_date`, most exports). */
const NO_ZONE = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/** A row's time as ISO 8601 UTC, or null when the text is not a time. */
export function parseTime(text: string): string | null {
  const t = text.trim();
  if (!t) return null;
  const ms = NO_ZONE.test(t) ? Date.parse(`${t.replace(" ", "T")}Z`) : Date.parse(t);
  if (!Number.isFinite(ms)) return null;
  return new Date(ms).toISOString();
}
