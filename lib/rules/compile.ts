/**
 * A form's rules, compiled once per form version: its fields by name, the order that
 * resolves every `when`, `compute` and step condition after the fields it reads, and the
 * pattern engine. Kept in a bounded cache keyed by the form's id, `schema_version` and
 * `updated_at` (or by the field list itself when those are missing), so a submit does not
 * read its expressions again.
 * @module
 */
import type { PatternMatcher } from "./checks.ts";
import { type CompiledExpression, compileExpression, inspectExpression } from "./logic.ts";
import type { Expression, RuleField, RuleForm } from "./types.ts";

/** One field as the evaluation walks it. */
export interface CompiledField {
  field: RuleField;
  /** The field's position in the definition (errors are reported in this order). */
  index: number;
  /** The index of the step holding it, if any. */
  step?: number;
  when?: CompiledExpression;
  compute?: CompiledExpression;
}

/** A form's compiled rules. */
export interface Rules {
  form: RuleForm;
  /** Fields in an order where each comes after every field its conditions read. */
  order: CompiledField[];
  byName: Map<string, CompiledField>;
  steps: { when?: CompiledExpression; fields: Set<string> }[];
  /** Names a value may be sent under without being a field (the honeypot). */
  allowedExtra: Set<string>;
  match: PatternMatcher;
}

/** The browser's own engine: the pattern must match the whole value (as HTML's `pattern`). */
export function browserPatternMatcher(pattern: string, value: string): boolean {
  try {
    return new RegExp(`^(?:${pattern})$`, "u").test(value);
  } catch {
    // A pattern this engine cannot compile is left to the service.
    return true;
  }
}

const MAX_CACHED = 500;
const byKey = new WeakMap<PatternMatcher, Map<string, Rules>>();
const byFields = new WeakMap<PatternMatcher, WeakMap<object, Rules>>();

function cacheKey(form: RuleForm): string | null {
  return form.id && form.schema_version !== undefined && form.updated_at
    ? `${form.id}\0${form.schema_version}\0${form.updated_at}`
    : null;
}

/**
 * The compiled rules of `form`, from the cache when this version was compiled before.
 * `match` is the pattern engine: the browser's RegExp by default; the server passes RE2.
 */
export function compileRules(
  form: RuleForm,
  match: PatternMatcher = browserPatternMatcher,
): Rules {
  const key = cacheKey(form);
  let keyed = byKey.get(match);
  if (!keyed) byKey.set(match, keyed = new Map());
  let objects = byFields.get(match);
  if (!objects) byFields.set(match, objects = new WeakMap());
  const hit = key ? keyed.get(key) : objects.get(form.fields);
  if (hit) return hit;
  const rules = build(form, match);
  if (key) {
    if (keyed.size >= MAX_CACHED) keyed.delete(keyed.keys().next().value!);
    keyed.set(key, rules);
  } else {
    objects.set(form.fields, rules);
  }
  return rules;
}

function build(form: RuleForm, match: PatternMatcher): Rules {
  const steps = (form.steps ?? []).map((s) => ({
    ...(s.when === undefined ? {} : { when: compileExpression(s.when) }),
    fields: new Set(s.fields),
  }));
  const byName = new Map<string, CompiledField>();
  form.fields.forEach((field, index) => {
    const step = steps.findIndex((s) => s.fields.has(field.name));
    byName.set(field.name, {
      field,
      index,
      ...(step >= 0 ? { step } : {}),
      ...(field.when === undefined ? {} : { when: compileExpression(field.when) }),
      ...(field.compute === undefined ? {} : { compute: compileExpression(field.compute) }),
    });
  });
  return {
    form,
    order: resolutionOrder(byName, form.steps ?? []),
    byName,
    steps,
    allowedExtra: new Set(form.honeypot ? [form.honeypot] : []),
    match,
  };
}

/** The fields a field's expressions read: its `when`, its `compute`, its step's `when`. */
export function dependencies(
  field: RuleField,
  step: { when?: Expression } | undefined,
): string[] {
  const refs = new Set<string>();
  for (const e of [field.when, field.compute, step?.when]) {
    if (e === undefined) continue;
    // `cv.sizeBytes` reads the field `cv`.
    for (const r of inspectExpression(e).references) refs.add(r.split(".")[0]);
  }
  return [...refs];
}

/**
 * Fields ordered so each follows the fields it reads (depth-first). A definition with a
 * cycle is refused before it is stored; here a cycle only stops the walk from looping.
 */
function resolutionOrder(
  byName: Map<string, CompiledField>,
  steps: readonly { when?: Expression }[],
): CompiledField[] {
  const order: CompiledField[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (c: CompiledField) => {
    if (state.has(c.field.name)) return;
    state.set(c.field.name, "visiting");
    const step = c.step === undefined ? undefined : steps[c.step];
    for (const name of dependencies(c.field, step)) {
      const dep = byName.get(name);
      if (dep && dep !== c) visit(dep);
    }
    state.set(c.field.name, "done");
    order.push(c);
  };
  for (const c of byName.values()) visit(c);
  return order;
}
