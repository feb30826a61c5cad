/**
 * The per-form validator, built from a form's field list. Returns SPEC part 7's
 * `{field, fieldId, message, type}` items and the normalised values.
 * @module
 */
import type { FieldError } from "@/lib/errors.ts";
import { matchesPattern } from "./patterns.ts";
import { type Field, fileRefSchema, type Form, isFileType } from "@/lib/schemas.ts";

/** How values arrive: JSON keeps types; form posts send strings and are coerced. */
export type ValueSource = "json" | "form";

/** Result of validating one submission's `data`. */
export interface ValidationResult {
  errors: FieldError[];
  /** Field values keyed by field name, normalised (numbers parsed, empty optional fields dropped). */
  values: Record<string, unknown>;
}

const EMAIL = /^[^\s@"<>()[\]\\,;:]+@[^\s@"<>()[\]\\,;:]+\.[^\s@"<>()[\]\\,;:]{2,}$/u;
const TEL = /^\+?[0-9 ().\-/]{3,32}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/;

/** Validates `data` against the form's fields. The honeypot key is allowed and ignored. */
export function validateData(
  form: Form,
  data: Record<string, unknown>,
  source: ValueSource = "json",
): ValidationResult {
  const errors: FieldError[] = [];
  const values: Record<string, unknown> = {};
  const byName = new Map(form.fields.map((f) => [f.name, f]));
  for (const key of Object.keys(data)) {
    if (!byName.has(key) && key !== form.honeypot) {
      errors.push({
        field: key,
        fieldId: "",
        message: `Unknown field '${truncate(key)}'.`,
        type: "unknown_field",
      });
    }
  }
  for (const field of form.fields) {
    // Own keys only: `data.constructor` must not find Object.prototype's.
    const raw = Object.hasOwn(data, field.name) ? data[field.name] : undefined;
    const result = checkField(field, raw, source);
    if ("error" in result) {
      errors.push({
        field: field.name,
        fieldId: field.id,
        message: result.error.message,
        type: result.error.type,
      });
    } else if (result.value !== undefined) {
      // defineProperty: a field named `__proto__` is stored as a value, not a prototype.
      Object.defineProperty(values, field.name, {
        value: result.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return { errors, values };
}

type Check = { value: unknown } | { error: { type: string; message: string } };

function fail(type: string, message: string): Check {
  return { error: { type, message } };
}

/** The required-checkbox message: the label quoted, never "X is required." */
function tickMessage(label: string): string {
  return `Please tick “${label.replace(/[.!?:;,\s]+$/u, "")}”.`;
}

function checkField(field: Field, raw: unknown, source: ValueSource): Check {
  const label = field.label || field.name;
  const v = source === "form" ? coerce(field, raw) : raw;
  if (isEmpty(v)) {
    if (!field.required) return { value: undefined };
    // A checkbox's label is a sentence ("I agree to be contacted"): ask for the tick.
    return fail(
      "required",
      field.type === "boolean" ? tickMessage(label) : `${label} is required.`,
    );
  }
  if (isFileType(field.type)) {
    const ref = fileRefSchema.safeParse(v);
    return ref.success
      ? { value: ref.data }
      : fail("file", `${label} must be a file reference {path, ...}.`);
  }
  switch (field.type) {
    case "number":
    case "integer":
      return checkNumber(field, label, v);
    case "boolean":
      if (typeof v !== "boolean") return fail("type", `${label} must be true or false.`);
      if (field.required && v !== true) return fail("required", tickMessage(label));
      return { value: v };
    case "select":
    case "radio":
      if (typeof v !== "string") return fail("type", `${label} must be a string.`);
      return field.options?.includes(v)
        ? { value: v }
        : fail("options", `${label} must be one of the listed options.`);
    case "multiselect":
      return checkMulti(field, label, v);
    default:
      return checkString(field, label, v);
  }
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

function checkString(field: Field, label: string, v: unknown): Check {
  if (typeof v !== "string") return fail("type", `${label} must be a string.`);
  const length = field.minLength === undefined && field.maxLength === undefined ? 0 : codePoints(v);
  if (field.minLength !== undefined && length < field.minLength) {
    return fail("minLength", `${label} must be at least ${field.minLength} characters.`);
  }
  if (field.maxLength !== undefined && length > field.maxLength) {
    return fail("maxLength", `${label} must be at most ${field.maxLength} characters.`);
  }
  const format = checkFormat(field, label, v);
  if (format) return format;
  if (field.pattern !== undefined && !matchesPattern(field.pattern, v)) {
    return fail("pattern", `${label} is not in the expected format.`);
  }
  if (field.type === "date" || field.type === "datetime") {
    const t = Date.parse(field.type === "date" ? `${v}T00:00:00Z` : v);
    if (field.min !== undefined && t < Date.parse(String(field.min))) {
      return fail("min", `${label} must be on or after ${field.min}.`);
    }
    if (field.max !== undefined && t > Date.parse(String(field.max))) {
      return fail("max", `${label} must be on or before ${field.max}.`);
    }
  }
  return { value: v };
}

function checkFormat(field: Field, label: string, v: string): Check | null {
  switch (field.type) {
    case "email":
      return EMAIL.test(v) && v.length <= 254
        ? null
        : fail("email", `${label} must be a valid email address.`);
    case "url": {
      try {
        const u = new URL(v);
        return u.protocol === "http:" || u.protocol === "https:"
          ? null
          : fail("url", `${label} must be an http(s) URL.`);
      } catch {
        return fail("url", `${label} must be a valid URL.`);
      }
    }
    case "tel":
      return TEL.test(v) ? null : fail("tel", `${label} must be a phone number.`);
    case "date": {
      const m = DATE.exec(v);
      const d = m ? new Date(`${v}T00:00:00Z`) : null;
      return d && !isNaN(d.getTime()) && d.toISOString().startsWith(v)
        ? null
        : fail("date", `${label} must be a date (YYYY-MM-DD).`);
    }
    case "datetime":
      return DATETIME.test(v) && !isNaN(Date.parse(v))
        ? null
        : fail("datetime", `${label} must be a date and time (ISO 8601).`);
    default:
      return null;
  }
}

function checkNumber(field: Field, label: string, v: unknown): Check {
  if (typeof v !== "number" || !Number.isFinite(v)) {
    return fail("type", `${label} must be a number.`);
  }
  if (field.type === "integer" && !Number.isInteger(v)) {
    return fail("type", `${label} must be a whole number.`);
  }
  if (field.min !== undefined && v < Number(field.min)) {
    return fail("min", `${label} must be at least ${field.min}.`);
  }
  if (field.max !== undefined && v > Number(field.max)) {
    return fail("max", `${label} must be at most ${field.max}.`);
  }
  return { value: v };
}

function checkMulti(field: Field, label: string, v: unknown): Check {
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
    return fail("type", `${label} must be a list of strings.`);
  }
  if (new Set(v).size !== v.length) return fail("options", `${label} lists an option twice.`);
  if (!v.every((x) => field.options?.includes(x))) {
    return fail("options", `${label} must only hold the listed options.`);
  }
  if (field.min !== undefined && v.length < Number(field.min)) {
    return fail("min", `${label} needs at least ${field.min} choices.`);
  }
  if (field.max !== undefined && v.length > Number(field.max)) {
    return fail("max", `${label} allows at most ${field.max} choices.`);
  }
  return { value: v };
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);
}

/** Form posts carry strings (or repeated strings); turn them into the field's JSON type. */
function coerce(field: Field, raw: unknown): unknown {
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
      if (one === "") return field.required ? false : undefined;
      if (["true", "on", "1", "yes"].includes(String(one).toLowerCase())) return true;
      if (["false", "off", "0", "no"].includes(String(one).toLowerCase())) return false;
      return one;
    case "multiselect":
      return Array.isArray(one) ? one : [one];
    default:
      return one;
  }
}

function truncate(s: string): string {
  return s.length > 64 ? `${s.slice(0, 64)}…` : s;
}
