/**
 * The hosted form's rules in the browser (and in its server render): the rules module
 * applied to the page's values, for which fields and steps are shown and what computed
 * fields hold. The server applies the same module to what is sent.
 * @module
 */
import type { Field } from "@/lib/schemas.ts";
import { compileRules, evaluate, type Evaluation, formatterFor } from "@/lib/rules/mod.ts";
import type { HostedStep } from "./types.ts";

/** What the page shows for some values: fields and steps shown, computed values. */
export interface PageLogic {
  shown: Record<string, boolean>;
  computed: Record<string, unknown>;
  steps: boolean[];
}

/** Every field and step shown, nothing computed (an expression that cannot run). */
function everything(fields: Field[], steps: HostedStep[]): PageLogic {
  return {
    shown: Object.fromEntries(fields.map((f) => [f.name, true])),
    computed: {},
    steps: steps.map(() => true),
  };
}

/**
 * The rules' answer for `data`: `form` for a post's strings (the server render), `json` for
 * the values the page collects. Never throws: the server decides in the end.
 */
export function pageLogic(
  fields: Field[],
  steps: HostedStep[],
  data: Record<string, unknown>,
  source: "form" | "json",
): PageLogic {
  try {
    const e: Evaluation = evaluate(compileRules({ fields, steps }), data, { source });
    return { shown: e.shown, computed: e.computed, steps: e.steps };
  } catch {
    return everything(fields, steps);
  }
}

/**
 * The problems of one step (0-based) in the browser's own check, field to message, in
 * `lang` (the fields carry their labels in that language already).
 */
export function stepErrors(
  fields: Field[],
  steps: HostedStep[],
  data: Record<string, unknown>,
  step: number,
  lang: string,
): Record<string, string> {
  const found: Record<string, string> = {};
  try {
    const messages = formatterFor(lang);
    const e = evaluate(compileRules({ fields, steps }), data, { step, messages });
    for (const issue of e.errors) found[issue.field] ??= issue.message;
  } catch { /* the server checks */ }
  return found;
}

/** Whether a field can be hidden by a condition (its own or its step's). */
export function conditional(field: Field, steps: HostedStep[]): boolean {
  return field.when !== undefined ||
    steps.some((s) => s.when !== undefined && s.fields.includes(field.name));
}
