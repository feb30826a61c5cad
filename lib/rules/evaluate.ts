/**
 * A form's rules applied to one set of values: which fields are shown and required, what
 * computed fields hold, the values to store and the problems (SPEC part 7's items).
 * A field whose `when` (or whose step's `when`) is false is hidden: never required, its
 * sent value dropped without an error. A computed field's sent value is ignored.
 * @module
 */
import { checkValue, type Verdict } from "./checks.ts";
import type { Rules } from "./compile.ts";
import { runExpression, truthy } from "./logic.ts";
import { EN, fill, type MessageId } from "./messages_en.ts";
import type { Issue, RuleField, ValueSource } from "./types.ts";

/** Builds a problem's message from its id and parameters (English unless given). */
export type MessageFormatter = (
  id: MessageId,
  params: Record<string, string | number>,
  field: RuleField | null,
) => string;

/** What the evaluation is asked. */
export interface EvaluateOptions {
  /** `form`: values are a form post's strings, coerced to each field's type. Default `json`. */
  source?: ValueSource;
  /** Only the problems of this step's fields (0-based), as a page checks one step. */
  step?: number;
  /** The messages' language (default: English). */
  messages?: MessageFormatter;
}

/** The rules' answer for one set of values. */
export interface Evaluation {
  /** The values to store: shown fields only, computed ones by the rules, defaults applied. */
  values: Record<string, unknown>;
  /** The problems, unknown keys first, then in the fields' order. */
  errors: Issue[];
  /** Whether each field is shown (its `when` and its step's `when` hold). */
  shown: Record<string, boolean>;
  /** Whether each field must be filled now (shown and `required`). */
  required: Record<string, boolean>;
  /** The value of each shown computed field (absent when it computes to nothing). */
  computed: Record<string, unknown>;
  /** Whether each step is shown. */
  steps: boolean[];
}

/** An issue's English message. */
export const english: MessageFormatter = (id, params) => fill(EN[id], params);

/** Sets a key as a plain own property (a field named `__proto__` stays a value). */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty costs about a microsecond a call: only `__proto__` needs it.
  if (key !== "__proto__") target[key] = value;
  else {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
}

/** Applies `rules` to `data` (values keyed by field name). */
export function evaluate(
  rules: Rules,
  data: Record<string, unknown>,
  options: EvaluateOptions = {},
): Evaluation {
  const source = options.source ?? "json";
  const message = options.messages ?? english;
  const scope: Record<string, unknown> = Object.create(null);
  const values: Record<string, unknown> = {};
  const shown: Record<string, boolean> = {};
  const required: Record<string, boolean> = {};
  const computed: Record<string, unknown> = {};
  const stepShown: (boolean | undefined)[] = rules.steps.map(() => undefined);
  const stepVisible = (i: number) =>
    stepShown[i] ??= rules.steps[i].when === undefined ||
      truthy(runExpression(rules.steps[i].when!, scope));
  const failures: [number, Issue][] = [];
  for (const { field, index, step, when, compute } of rules.order) {
    const name = field.name;
    const visible = (step === undefined || stepVisible(step)) &&
      (when === undefined || truthy(runExpression(when, scope)));
    put(shown, name, visible);
    put(required, name, visible && field.required === true);
    if (!visible) continue;
    let verdict: Verdict;
    if (compute !== undefined) {
      const value = computedValue(field, runExpression(compute, scope));
      if (value !== undefined) put(computed, name, value);
      verdict = checkValue(field, value, "json", field.required === true, rules.match);
    } else {
      const sent = Object.hasOwn(data, name);
      const raw = sent ? data[name] : defaultFor(field, source);
      verdict = checkValue(field, raw, source, field.required === true, rules.match);
    }
    if ("fail" in verdict) {
      if (options.step !== undefined && step !== options.step) continue;
      const { type, id, params } = verdict.fail;
      failures.push([index, {
        field: name,
        fieldId: field.id ?? "",
        message: message(id, params, field),
        type,
        messageId: id,
        params,
      }]);
    } else if (verdict.value !== undefined) {
      put(values, name, verdict.value);
      scope[name] = verdict.value;
    }
  }
  const errors: Issue[] = unknownKeys(rules, data, message);
  errors.push(...failures.sort((a, b) => a[0] - b[0]).map(([, issue]) => issue));
  return {
    values,
    errors,
    shown,
    required,
    computed,
    steps: rules.steps.map((_, i) => stepVisible(i)),
  };
}

/** Keys that are neither a field nor the honeypot. */
function unknownKeys(
  rules: Rules,
  data: Record<string, unknown>,
  message: MessageFormatter,
): Issue[] {
  const found: Issue[] = [];
  for (const key of Object.keys(data)) {
    if (rules.byName.has(key) || rules.allowedExtra.has(key)) continue;
    const params = { name: key.length > 64 ? `${key.slice(0, 64)}…` : key };
    found.push({
      field: key,
      fieldId: "",
      message: message("unknown_field", params, null),
      type: "unknown_field",
      messageId: "unknown_field",
      params,
    });
  }
  return found;
}

/**
 * A field's `default` when the data does not hold it. Not for a checkbox of a form post:
 * there an unticked box is simply absent.
 */
function defaultFor(field: RuleField, source: ValueSource): unknown {
  if (field.default === undefined) return undefined;
  if (source === "form" && field.type === "boolean") return undefined;
  return field.default;
}

/**
 * A computed result as the field's type: numbers (integers rounded), JSON Logic truth for
 * a checkbox, text for the rest; nothing for null or a number that is not finite.
 */
export function computedValue(field: RuleField, result: unknown): unknown {
  if (result === null || result === undefined) return undefined;
  switch (field.type) {
    case "number":
    case "integer": {
      const n = typeof result === "number" ? result : Number(result);
      if (!Number.isFinite(n) || (typeof result === "string" && result.trim() === "")) {
        return undefined;
      }
      return field.type === "integer" ? Math.round(n) : n;
    }
    case "boolean":
      return truthy(result);
    case "multiselect":
      return Array.isArray(result) ? result.map(String) : [String(result)];
    default:
      return typeof result === "object" ? JSON.stringify(result) : String(result);
  }
}
