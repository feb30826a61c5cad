/**
 * One field's value against its type and rules: coerced from a form post's strings when
 * needed, then checked. Answers the cleaned value or the failed rule (`type`) with the
 * message id and parameters its message is built from.
 * @module
 */
import type { MessageId } from "./messages_en.ts";
import type { RuleField, ValueSource } from "./types.ts";

/** A check's verdict: the value to store (undefined: nothing), or the failed rule. */
export type Verdict =
  | { value: unknown }
  | { fail: { type: string; id: MessageId; params: Record<string, string | number> } };

/** Whether the whole of a value matches a field's `pattern` (the engine differs by place). */
export type PatternMatcher = (pattern: string, value: string) => boolean;

/** The file-like field types: their value is a file reference object. */
export const FILE_TYPES: readonly string[] = ["file", "image", "signature", "video", "audio"];

const EMAIL = /^[^\s@"<>()[\]\\,;:]+@[^\s@"<>()[\]\\,;:]+\.[^\s@"<>()[\]\\,;:]{2,}$/u;
const TEL = /^\+?[0-9 ().\-/]{3,32}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/;
const FILE_REF_KEYS = new Set(["path", "originalFilename", "mimeType", "sizeBytes"]);

/** The label a message names: the field's label, else its name. */
export function labelOf(field: RuleField): string {
  return field.label || field.name;
}

function fail(
  type: string,
  id: MessageId,
  field: RuleField,
  extra: Record<string, string | number> = {},
): Verdict {
  return { fail: { type, id, params: { label: labelOf(field), ...extra } } };
}

/** A checkbox label as the tick message quotes it: without its closing punctuation. */
export function tickLabel(label: string): string {
  return label.replace(/[.!?:;,\s]+$/u, "");
}

/** The required-checkbox failure: the label quoted as a sentence, never "X is required." */
function tick(field: RuleField): Verdict {
  return { fail: { type: "required", id: "tick", params: { label: tickLabel(labelOf(field)) } } };
}

/** Whether a value counts as not given. */
export function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);
}

/** A string's length in code points (a lone surrogate counts one), as `[...s].length`. */
export function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) continue;
    const next = s.charCodeAt(i + 1);
    if (next >= 0xdc00 && next <= 0xdfff) n--, i++;
  }
  return n;
}

/** Checks one field's raw value; `required` says whether an empty value fails. */
export function checkValue(
  field: RuleField,
  raw: unknown,
  source: ValueSource,
  required: boolean,
  match: PatternMatcher,
): Verdict {
  const v = source === "form" ? coerce(field, raw, required) : raw;
  if (isEmpty(v)) {
    if (!required) return { value: undefined };
    // A checkbox's label is a sentence ("I agree to be contacted"): ask for the tick.
    return field.type === "boolean" ? tick(field) : fail("required", "required", field);
  }
  if (FILE_TYPES.includes(field.type)) return checkFileRef(field, v);
  switch (field.type) {
    case "number":
    case "integer":
      return checkNumber(field, v);
    case "boolean":
      if (typeof v !== "boolean") return fail("type", "boolean", field);
      return required && v !== true ? tick(field) : { value: v };
    case "select":
    case "radio":
      if (typeof v !== "string") return fail("type", "string", field);
      return field.options?.includes(v) ? { value: v } : fail("options", "option", field);
    case "multiselect":
      return checkList(field, v);
    default:
      return checkString(field, v, match);
  }
}

/** A file reference object: `path` and the known optional keys, nothing else. */
function checkFileRef(field: RuleField, v: unknown): Verdict {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    return fail("file", "file_ref", field);
  }
  const ref = v as Record<string, unknown>;
  const ok = Object.keys(ref).every((k) => FILE_REF_KEYS.has(k)) &&
    typeof ref.path === "string" && ref.path.length >= 1 && ref.path.length <= 500 &&
    (ref.originalFilename === undefined ||
      (typeof ref.originalFilename === "string" && ref.originalFilename.length <= 255)) &&
    (ref.mimeType === undefined ||
      (typeof ref.mimeType === "string" && ref.mimeType.length <= 200)) &&
    (ref.sizeBytes === undefined ||
      (typeof ref.sizeBytes === "number" && Number.isInteger(ref.sizeBytes) &&
        ref.sizeBytes >= 0));
  return ok ? { value: { ...ref } } : fail("file", "file_ref", field);
}

function checkString(field: RuleField, v: unknown, match: PatternMatcher): Verdict {
  if (typeof v !== "string") return fail("type", "string", field);
  const length = field.minLength === undefined && field.maxLength === undefined ? 0 : codePoints(v);
  if (field.minLength !== undefined && length < field.minLength) {
    return fail("minLength", "length_min", field, { min: field.minLength });
  }
  if (field.maxLength !== undefined && length > field.maxLength) {
    return fail("maxLength", "length_max", field, { max: field.maxLength });
  }
  const format = checkFormat(field, v);
  if (format) return format;
  if (field.pattern !== undefined && !match(field.pattern, v)) {
    return fail("pattern", "pattern", field);
  }
  if (field.type === "date" || field.type === "datetime") {
    const t = Date.parse(field.type === "date" ? `${v}T00:00:00Z` : v);
    if (field.min !== undefined && t < Date.parse(String(field.min))) {
      return fail("min", "date_min", field, { min: field.min });
    }
    if (field.max !== undefined && t > Date.parse(String(field.max))) {
      return fail("max", "date_max", field, { max: field.max });
    }
  }
  return { value: v };
}

function checkFormat(field: RuleField, v: string): Verdict | null {
  switch (field.type) {
    case "email":
      return EMAIL.test(v) && v.length <= 254 ? null : fail("email", "email", field);
    case "url": {
      try {
        const u = new URL(v);
        return u.protocol === "http:" || u.protocol === "https:"
          ? null
          : fail("url", "url_scheme", field);
      } catch {
        return fail("url", "url", field);
      }
    }
    case "tel":
      return TEL.test(v) ? null : fail("tel", "tel", field);
    case "date": {
      const m = DATE.exec(v);
      const d = m ? new Date(`${v}T00:00:00Z`) : null;
      return d && !isNaN(d.getTime()) && d.toISOString().startsWith(v)
        ? null
        : fail("date", "date", field);
    }
    case "datetime":
      return DATETIME.test(v) && !isNaN(Date.parse(v)) ? null : fail("datetime", "datetime", field);
    default:
      return null;
  }
}

function checkNumber(field: RuleField, v: unknown): Verdict {
  if (typeof v !== "number" || !Number.isFinite(v)) return fail("type", "number", field);
  if (field.type === "integer" && !Number.isInteger(v)) return fail("type", "integer", field);
  if (field.min !== undefined && v < Number(field.min)) {
    return fail("min", "number_min", field, { min: field.min });
  }
  if (field.max !== undefined && v > Number(field.max)) {
    return fail("max", "number_max", field, { max: field.max });
  }
  return { value: v };
}

function checkList(field: RuleField, v: unknown): Verdict {
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
    return fail("type", "list", field);
  }
  if (new Set(v).size !== v.length) return fail("options", "list_twice", field);
  if (!v.every((x) => field.options?.includes(x))) return fail("options", "list_options", field);
  if (field.min !== undefined && v.length < Number(field.min)) {
    return fail("min", "list_min", field, { min: field.min });
  }
  if (field.max !== undefined && v.length > Number(field.max)) {
    return fail("max", "list_max", field, { max: field.max });
  }
  return { value: v };
}

/** Form posts carry strings (or repeated strings); turn them into the field's JSON type. */
function coerce(field: RuleField, raw: unknown, required: boolean): unknown {
  const one = Array.isArray(raw) && field.type !== "multiselect" ? raw[raw.length - 1] : raw;
  if (typeof one !== "string" && !Array.isArray(one)) return one;
  switch (field.type) {
    case "number":
    case "integer": {
      if (typeof one !== "string" || one.trim() === "") return one === "" ? undefined : one;
      const n = Number(one.trim());
      return Number.isNaN(n) ? one : n;
    }
    case "boolean":
      if (one === "") return required ? false : undefined;
      if (["true", "on", "1", "yes"].includes(String(one).toLowerCase())) return true;
      if (["false", "off", "0", "no"].includes(String(one).toLowerCase())) return false;
      return one;
    case "multiselect":
      return Array.isArray(one) ? one : [one];
    default:
      return one;
  }
}
