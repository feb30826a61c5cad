/**
 * The rules of a form's data, in one place for the server, the hosted page, the client
 * library and the generated types: which fields are shown and required, what computed
 * fields hold, the values to store and the problems. Pure TypeScript that bundles into
 * browser code (no Deno, KV or HTTP); the one `lib/` folder islands and the client library
 * import at run time.
 * @module
 */
import type { PatternMatcher } from "./checks.ts";
import { compileRules } from "./compile.ts";
import { evaluate, type EvaluateOptions, type Evaluation } from "./evaluate.ts";
import type { RuleForm } from "./types.ts";

export { browserPatternMatcher, compileRules, type Rules } from "./compile.ts";
export {
  codePoints,
  FILE_TYPES,
  isEmpty,
  labelOf,
  type PatternMatcher,
  tickLabel,
} from "./checks.ts";
export {
  computedValue,
  english,
  evaluate,
  type EvaluateOptions,
  type Evaluation,
  type MessageFormatter,
} from "./evaluate.ts";
export { type DefinitionProblem, definitionProblems, LANGUAGE_CODE } from "./definition.ts";
export { inspectExpression, OPERATORS } from "./logic.ts";
export {
  allowedTypesOf,
  checkFile,
  fileVerdicts,
  formatMB,
  MB,
  normaliseType,
  typeAllowed,
} from "./files.ts";
export { type Catalogue, EN, fill, type MessageId, UI_EN, type UiTextId } from "./messages_en.ts";
export {
  acceptedLanguages,
  formatterFor,
  formLanguages,
  isRtl,
  labelIn,
  messageFor,
  pickLanguage,
  SHIPPED_LANGUAGES,
  summaryIn,
  uiText,
} from "./i18n.ts";
export type * from "./types.ts";

/** `form`'s rules (compiled once per version) applied to `data`. */
export function evaluateForm(
  form: RuleForm,
  data: Record<string, unknown>,
  options: EvaluateOptions & { match?: PatternMatcher } = {},
): Evaluation {
  return evaluate(compileRules(form, options.match), data, options);
}
