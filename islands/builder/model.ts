/**
 * The field builder's model: an editable row per field (rules kept as text while typing)
 * and the conversions to and from the form definition's field JSON.
 * @module
 */
import type { FieldInput } from "@/lib/schemas.ts";
import { type FieldRef, fromLogic, namesIn, renameVar } from "./conditions.ts";

/** A rule of a field (CONTRACT Rules). */
export type Rule =
  | "minLength"
  | "maxLength"
  | "pattern"
  | "min"
  | "max"
  | "options"
  | "allowedTypes"
  | "maxSizeMB";

/** The editor's copy of a field: every rule as text, so typing never loses input. */
export interface Row {
  key: number;
  id?: string;
  name: string;
  label: string;
  type: string;
  required: boolean;
  placeholder: string;
  help: string;
  rules: Record<Rule, string>;
  /** The field's `when` (JSON Logic) as the condition editor left it; undefined: always shown. */
  when?: unknown;
  /** The field's `compute` as JSON text ("" for none). */
  compute: string;
  /** The field's `default` as text ("" for none). */
  default: string;
}

/** Types with options. */
export const CHOICE = ["select", "multiselect", "radio"];
const DATES = ["date", "datetime"];

/** Which rules a type takes (mirrors lib/forms/validator.ts). */
export function rulesOf(type: string, fileTypes: string[]): Rule[] {
  if (fileTypes.includes(type)) return ["allowedTypes", "maxSizeMB"];
  if (type === "number" || type === "integer") return ["min", "max"];
  if (type === "multiselect") return ["options", "min", "max"];
  if (CHOICE.includes(type)) return ["options"];
  if (type === "boolean") return [];
  if (DATES.includes(type)) return ["min", "max", "pattern"];
  return ["minLength", "maxLength", "pattern"];
}

/** Labels of the rule inputs. */
export const RULE_LABELS: Record<Rule, string> = {
  minLength: "Min length",
  maxLength: "Max length",
  pattern: "Pattern (regex, whole value)",
  min: "Min",
  max: "Max",
  options: "Options (one per line)",
  allowedTypes: "Allowed MIME types (comma-separated)",
  maxSizeMB: "Max size (MB)",
};

/** `key` also names the row's element ids, so the server and the browser must agree on it. */
export function toRow(f: FieldInput, key: number): Row {
  const text = (v: unknown) => v === undefined || v === null ? "" : String(v);
  return {
    key,
    id: f.id,
    name: f.name,
    label: f.label ?? "",
    type: f.type,
    required: Boolean(f.required),
    placeholder: f.placeholder ?? "",
    help: f.help ?? "",
    rules: {
      minLength: text(f.minLength),
      maxLength: text(f.maxLength),
      pattern: text(f.pattern),
      min: text(f.min),
      max: text(f.max),
      options: (f.options ?? []).join("\n"),
      allowedTypes: (f.allowedTypes ?? []).join(", "),
      maxSizeMB: text(f.maxSizeMB),
    },
    when: f.when,
    compute: f.compute === undefined ? "" : JSON.stringify(f.compute),
    default: Array.isArray(f.default) ? f.default.join("\n") : text(f.default),
  };
}

/** What the condition editor may name: every other field, with its type and options. */
export function fieldRefs(rows: Row[], except?: number): FieldRef[] {
  return rows.filter((r) => r.key !== except && r.name.trim()).map((r) => ({
    name: r.name.trim(),
    label: r.label.trim(),
    type: r.type,
    options: r.rules.options.split("\n").map((s) => s.trim()).filter(Boolean),
  }));
}

/** The rows after the field `from` was renamed `to`: conditions and formulas follow it. */
export function renameInRows(rows: Row[], from: string, to: string): Row[] {
  if (!from || from === to) return rows;
  return rows.map((r) => {
    const when = r.when === undefined ? undefined : renameVar(r.when, from, to);
    let compute = r.compute;
    try {
      if (compute.trim()) compute = JSON.stringify(renameVar(JSON.parse(compute), from, to));
    } catch { /* left as typed: the check before saving names it */ }
    return { ...r, when, compute };
  });
}

function defaultOf(r: Row): unknown {
  const v = r.default.trim();
  if (!v) return undefined;
  if (r.type === "number" || r.type === "integer") return isNaN(Number(v)) ? v : Number(v);
  if (r.type === "boolean") return v === "true";
  if (r.type === "multiselect") return v.split("\n").map((s) => s.trim()).filter(Boolean);
  return v;
}

/** The JSON the server receives; numbers where the schema wants numbers. */
export function toField(r: Row, fileTypes: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { name: r.name.trim(), type: r.type };
  if (r.id) out.id = r.id;
  if (r.label.trim()) out.label = r.label.trim();
  if (r.required) out.required = true;
  if (r.placeholder.trim()) out.placeholder = r.placeholder.trim();
  if (r.help.trim()) out.help = r.help.trim();
  if (r.when !== undefined) out.when = r.when;
  if (r.compute.trim()) {
    try {
      out.compute = JSON.parse(r.compute);
    } catch {
      out.compute = r.compute; // refused by the server with its reason, as typed
    }
  }
  const initial = defaultOf(r);
  if (initial !== undefined) out.default = initial;
  const num = (s: string) => (s.trim() === "" || isNaN(Number(s)) ? s.trim() : Number(s));
  for (const rule of rulesOf(r.type, fileTypes)) {
    const v = r.rules[rule].trim();
    if (!v) continue;
    if (rule === "options") out.options = v.split("\n").map((s) => s.trim()).filter(Boolean);
    else if (rule === "allowedTypes") {
      out.allowedTypes = v.split(",").map((s) => s.trim()).filter(Boolean);
    } else if (rule === "pattern") out.pattern = v;
    else if ((rule === "min" || rule === "max") && DATES.includes(r.type)) out[rule] = v;
    else out[rule] = num(v);
  }
  return out;
}

/** What is wrong with the rows before saving, in the editor's words (empty when none). */
export function rowProblems(rows: Row[], fileTypes: string[]): string[] {
  if (rows.length === 0) return ["Add at least one field: a form without fields collects nothing."];
  const out: string[] = [];
  const seen = new Set<string>();
  rows.forEach((r, i) => {
    const who = `Field ${i + 1} "${r.label || r.name || "(unnamed)"}"`;
    const name = r.name.trim();
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) {
      out.push(`${who}: the name may use letters, digits, _ . - and starts with a letter or _.`);
    } else if (seen.has(name)) out.push(`${who}: another field already has the name ${name}.`);
    seen.add(name);
    const rules = rulesOf(r.type, fileTypes);
    for (const rule of ["minLength", "maxLength", "min", "max", "maxSizeMB"] as const) {
      const v = r.rules[rule].trim();
      if (!rules.includes(rule) || !v) continue;
      if (rule === "min" || rule === "max") {
        if (DATES.includes(r.type)) continue;
      }
      if (isNaN(Number(v))) out.push(`${who}: ${RULE_LABELS[rule]} must be a number.`);
      else if (rule.endsWith("Length") && !Number.isInteger(Number(v))) {
        out.push(`${who}: ${RULE_LABELS[rule]} must be a whole number.`);
      }
    }
    const lo = Number(r.rules.minLength), hi = Number(r.rules.maxLength);
    if (rules.includes("minLength") && r.rules.minLength && r.rules.maxLength && lo > hi) {
      out.push(`${who}: Min length is greater than Max length.`);
    }
    if (CHOICE.includes(r.type) && !r.rules.options.trim()) {
      out.push(`${who}: give at least one option.`);
    }
    const names = new Set(rows.map((x) => x.name.trim()));
    if (r.when !== undefined) {
      const unknown = [...namesIn(r.when)].filter((n) => !names.has(n) || n === name);
      if (unknown.length) {
        out.push(`${who}: the condition names ${unknown.map((n) => n || "no field").join(", ")}.`);
      } else if (!fromLogic(r.when) && typeof r.when !== "object") {
        out.push(`${who}: the condition is not a JSON Logic expression.`);
      }
    }
    if (r.compute.trim()) {
      try {
        JSON.parse(r.compute);
      } catch {
        out.push(`${who}: the calculation is not valid JSON.`);
      }
    }
  });
  return out;
}
