/**
 * What is wrong with a form definition's logic and languages, before it is stored: an
 * expression that is invalid or uses an unknown operator, a reference to a field that
 * does not exist, fields whose expressions read each other in a circle, a `default` the
 * field would refuse, a step naming an unknown field, translations of unknown fields,
 * options or step titles. Each problem has the path of the part at fault.
 * @module
 */
import { checkValue, FILE_TYPES, type PatternMatcher } from "./checks.ts";
import { browserPatternMatcher, dependencies } from "./compile.ts";
import { english } from "./evaluate.ts";
import { inspectExpression } from "./logic.ts";
import type { Expression, RuleField, RuleForm } from "./types.ts";

/** One problem: where it is (`["fields", 2, "when"]`) and what it is. */
export interface DefinitionProblem {
  path: (string | number)[];
  message: string;
}

/** A language code: `en`, `de`, `pt-BR`, `zh-Hant`. */
export const LANGUAGE_CODE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}$/;

/** Every problem of `form`'s conditions, computations, defaults, steps and translations. */
export function definitionProblems(
  form: RuleForm,
  match: PatternMatcher = browserPatternMatcher,
): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  const names = new Map(form.fields.map((f, i) => [f.name, i]));
  const stepOf = new Map<string, number>();
  const expression = (path: (string | number)[], expr: Expression, self?: string) => {
    const facts = inspectExpression(expr);
    for (const p of facts.problems) problems.push({ path, message: `invalid expression: ${p}` });
    for (const ref of facts.references) {
      const problem = referenceProblem(ref, names, self);
      if (problem) problems.push({ path, message: problem });
    }
    return facts.references;
  };
  (form.steps ?? []).forEach((step, s) => {
    step.fields.forEach((name, j) => {
      if (!names.has(name)) {
        problems.push({
          path: ["steps", s, "fields", j],
          message: `names an unknown field '${name}'`,
        });
      } else if (stepOf.has(name)) {
        problems.push({
          path: ["steps", s, "fields", j],
          message: `'${name}' is already in step ${stepOf.get(name)! + 1}`,
        });
      } else stepOf.set(name, s);
    });
  });
  form.fields.forEach((f, i) => {
    if (f.when !== undefined) expression(["fields", i, "when"], f.when, f.name);
    if (f.compute !== undefined) {
      expression(["fields", i, "compute"], f.compute, f.name);
      if (FILE_TYPES.includes(f.type)) {
        problems.push({
          path: ["fields", i, "compute"],
          message: "a file field cannot be computed",
        });
      }
    }
    if (f.default !== undefined) problems.push(...defaultProblems(f, i, match));
    if (form.steps?.length && f.type !== "hidden" && !stepOf.has(f.name)) {
      problems.push({
        path: ["fields", i, "name"],
        message: `'${f.name}' is in no step (every shown field belongs to one)`,
      });
    }
  });
  (form.steps ?? []).forEach((step, s) => {
    if (step.when === undefined) return;
    for (const ref of expression(["steps", s, "when"], step.when)) {
      const at = stepOf.get(ref.split(".")[0]);
      if (at !== undefined && at >= s) {
        problems.push({
          path: ["steps", s, "when"],
          message: `reads '${ref}', which is not in an earlier step`,
        });
      }
    }
  });
  problems.push(...cycleProblems(form));
  problems.push(...translationProblems(form));
  return problems;
}

function referenceProblem(ref: string, names: Map<string, number>, self?: string): string | null {
  if (names.has(ref) && ref.includes(".")) {
    return `cannot read '${ref}': JSON Logic reads a dot as a path, so name fields read by expressions without dots`;
  }
  const head = ref.split(".")[0];
  if (!names.has(head)) return `names an unknown field '${ref}'`;
  if (head === self) return `reads its own field '${head}'`;
  return null;
}

function defaultProblems(f: RuleField, i: number, match: PatternMatcher): DefinitionProblem[] {
  const path = ["fields", i, "default"];
  if (FILE_TYPES.includes(f.type)) return [{ path, message: "a file field has no default" }];
  if (f.compute !== undefined) return [{ path, message: "a computed field has no default" }];
  const verdict = checkValue(f, f.default, "json", false, match);
  return "fail" in verdict
    ? [{ path, message: english(verdict.fail.id, verdict.fail.params, f) }]
    : [];
}

/** Fields whose expressions read each other in a circle (steps' conditions included). */
function cycleProblems(form: RuleForm): DefinitionProblem[] {
  const index = new Map(form.fields.map((f, i) => [f.name, i]));
  const stepWhen = new Map<string, Expression>();
  for (const s of form.steps ?? []) {
    if (s.when !== undefined) { for (const n of s.fields) stepWhen.set(n, s.when); }
  }
  const state = new Map<string, "visiting" | "done">();
  const found: DefinitionProblem[] = [];
  const stack: string[] = [];
  const visit = (name: string) => {
    state.set(name, "visiting");
    stack.push(name);
    const f = form.fields[index.get(name)!];
    const deps = dependencies(f, stepWhen.has(name) ? { when: stepWhen.get(name) } : undefined);
    for (const d of deps) {
      if (!index.has(d) || d === name) continue;
      if (state.get(d) === "visiting") {
        const circle = stack.slice(stack.indexOf(d));
        found.push({
          path: ["fields", index.get(d)!],
          message: `${
            circle.concat(d).map((n) => `'${n}'`).join(" -> ")
          }: expressions read each other in a circle`,
        });
      } else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(name, "done");
  };
  for (const f of form.fields) if (!state.has(f.name)) visit(f.name);
  return found;
}

function translationProblems(form: RuleForm): DefinitionProblem[] {
  const found: DefinitionProblem[] = [];
  const byName = new Map(form.fields.map((f) => [f.name, f]));
  if (form.default_language !== undefined && !LANGUAGE_CODE.test(form.default_language)) {
    found.push({ path: ["default_language"], message: "a language code like en, de or pt-BR" });
  }
  for (const [lang, texts] of Object.entries(form.translations ?? {})) {
    if (!LANGUAGE_CODE.test(lang)) {
      found.push({ path: ["translations", lang], message: "a language code like en, de or pt-BR" });
    }
    for (const [name, t] of Object.entries(texts.fields ?? {})) {
      const field = byName.get(name);
      if (!field) {
        found.push({
          path: ["translations", lang, "fields", name],
          message: `names an unknown field '${name}'`,
        });
        continue;
      }
      for (const value of Object.keys(t.options ?? {})) {
        if (!field.options?.includes(value)) {
          found.push({
            path: ["translations", lang, "fields", name, "options", value],
            message: `'${value}' is not an option of '${name}'`,
          });
        }
      }
    }
    const titles = new Set((form.steps ?? []).map((s) => s.title));
    for (const title of Object.keys(texts.steps ?? {})) {
      if (!titles.has(title)) {
        found.push({
          path: ["translations", lang, "steps", title],
          message: `'${title}' is not the title of a step`,
        });
      }
    }
  }
  return found;
}
