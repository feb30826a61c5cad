/**
 * The client-side check of a form's `data` and files: the service's own rules module
 * (`lib/rules`, bundled into the library), so the client finds exactly the problems the
 * service would (conditions, computed fields, defaults, steps, types and rules). The
 * service stays the authority; this check decides whether a submit may be sent again after
 * the form changed, and lets a page refuse a file before uploading it.
 * @module
 */
import { compileRules } from "../../lib/rules/compile.ts";
import { evaluate } from "../../lib/rules/evaluate.ts";
import { checkFile as fileIssues } from "../../lib/rules/files.ts";
import type { RuleField, RuleStep } from "../../lib/rules/types.ts";

/** The parts of a field the check reads. */
export type FieldRule = RuleField;

/** One problem found: the field's name, a message, and the rule that failed. */
export interface DataProblem {
  field: string;
  message: string;
  type: string;
}

/**
 * Every problem of `data` against `fields` (and `steps`, whose conditions hide fields);
 * `honeypot` names a key that is allowed.
 */
export function checkData(
  fields: readonly FieldRule[],
  data: unknown,
  honeypot?: string | null,
  steps?: readonly RuleStep[] | null,
): DataProblem[] {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return [{
      field: "",
      message: "data must be an object of field values.",
      type: "type",
    }];
  }
  const rules = compileRules({ fields, honeypot, steps });
  return evaluate(rules, data as Record<string, unknown>).errors.map((e) => ({
    field: e.field,
    message: e.message,
    type: e.type,
  }));
}

/** The problems of a file about to be uploaded to `field` (its type and size rules). */
export function checkFile(field: FieldRule, file: { type: string; size: number }): DataProblem[] {
  return fileIssues(field, file).map((e) => ({ field: e.field, message: e.message, type: e.type }));
}
