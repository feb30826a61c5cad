/**
 * The client-side check of a form's `data`: required fields, unknown keys, JSON types,
 * options, lengths, ranges and patterns. The service stays the authority; this check
 * decides whether a submit may be sent again after the form changed, and it is what the
 * generated `types.ts` of a form embeds (so it imports nothing).
 * @module
 */

/** The parts of a field the check reads. */
export interface FieldRule {
  name: string;
  type: string;
  label?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  min?: number | string;
  max?: number | string;
  options?: readonly string[];
}

/** One problem found: the field's name, a message, and the rule that failed. */
export interface DataProblem {
  field: string;
  message: string;
  type: string;
}

const FILE_TYPES = ["file", "image", "signature", "video", "audio"];

function empty(v: unknown): boolean {
  return v === undefined || v === null || v === "" ||
    (Array.isArray(v) && v.length === 0);
}

function problemOf(f: FieldRule, v: unknown): [string, string] | null {
  const label = f.label || f.name;
  // A checkbox's label is a sentence ("I agree to be contacted"): ask for the tick.
  const tick = `Please tick “${label.replace(/[.!?:;,\s]+$/u, "")}”.`;
  if (empty(v)) {
    if (!f.required) return null;
    return ["required", f.type === "boolean" ? tick : `${label} is required.`];
  }
  if (FILE_TYPES.includes(f.type)) {
    const ok = typeof v === "object" &&
      typeof (v as { path?: unknown }).path === "string";
    return ok ? null : ["file", `${label} must be a file reference {path, ...}.`];
  }
  if (f.type === "number" || f.type === "integer") {
    if (typeof v !== "number" || !isFinite(v)) {
      return ["type", `${label} must be a number.`];
    }
    if (f.type === "integer" && !Number.isInteger(v)) {
      return ["type", `${label} must be a whole number.`];
    }
    if (f.min !== undefined && v < Number(f.min)) {
      return ["min", `${label} must be at least ${f.min}.`];
    }
    if (f.max !== undefined && v > Number(f.max)) {
      return ["max", `${label} must be at most ${f.max}.`];
    }
    return null;
  }
  if (f.type === "boolean") {
    if (typeof v !== "boolean") {
      return ["type", `${label} must be true or false.`];
    }
    return f.required && !v ? ["required", tick] : null;
  }
  if (f.type === "multiselect") {
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
      return ["type", `${label} must be a list of strings.`];
    }
    return v.every((x) => f.options?.includes(x))
      ? null
      : ["options", `${label} must only hold the listed options.`];
  }
  if (typeof v !== "string") return ["type", `${label} must be a string.`];
  if (
    f.options && (f.type === "select" || f.type === "radio") &&
    !f.options.includes(v)
  ) {
    return ["options", `${label} must be one of the listed options.`];
  }
  const length = [...v].length;
  if (f.minLength !== undefined && length < f.minLength) {
    return [
      "minLength",
      `${label} must be at least ${f.minLength} characters.`,
    ];
  }
  if (f.maxLength !== undefined && length > f.maxLength) {
    return ["maxLength", `${label} must be at most ${f.maxLength} characters.`];
  }
  if (f.pattern !== undefined) {
    try {
      if (!new RegExp(`^(?:${f.pattern})$`, "u").test(v)) {
        return ["pattern", `${label} is not in the expected format.`];
      }
    } catch {
      // A pattern this engine cannot compile is left to the service.
    }
  }
  return null;
}

/** Every problem of `data` against `fields`; `honeypot` names a key that is allowed. */
export function checkData(
  fields: readonly FieldRule[],
  data: unknown,
  honeypot?: string | null,
): DataProblem[] {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return [{
      field: "",
      message: "data must be an object of field values.",
      type: "type",
    }];
  }
  const values = data as Record<string, unknown>;
  const known = new Set(fields.map((f) => f.name));
  const problems: DataProblem[] = Object.keys(values)
    .filter((k) => !known.has(k) && k !== honeypot)
    .map((k) => ({
      field: k,
      message: `Unknown field '${k}'.`,
      type: "unknown_field",
    }));
  for (const f of fields) {
    const p = problemOf(
      f,
      Object.prototype.hasOwnProperty.call(values, f.name) ? values[f.name] : undefined,
    );
    if (p) problems.push({ field: f.name, type: p[0], message: p[1] });
  }
  return problems;
}
