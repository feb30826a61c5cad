/**
 * The final verdict on a stored submission, computed by the post-commit scoring job
 * (jobs/score_batch.ts): the first verdict its commit scored from the behavioural signals
 * (protection/score_context.ts), completed by what the content model (lib/spam) reads in
 * its text, in one score (protection/score.ts). The signals are scored once.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import {
  CONTENT_HAM_P,
  contentPart,
  isLinkReason,
  scoreSpam,
  type SpamVerdict,
  statusOf,
} from "./score.ts";
import { spamInputOf } from "./score_context.ts";
import { scoreSubmission } from "@/lib/spam/submission_text.ts";
import { blendModel, type SpamStats } from "@/lib/spam/learn.ts";
import type { ContentResult, SpamModel } from "@/lib/spam/model.ts";

/**
 * The content model for a workspace's verdicts: the global model blended with what its
 * admins' labels taught (lib/spam/learn.ts), given its statistics as read
 * (`keys.spamStats`, null when it has none). A job run reads them once.
 */
export async function workspaceModel(
  deps: Pick<Deps, "spamModel">,
  stats: SpamStats | null,
): Promise<SpamModel> {
  return blendModel(await deps.spamModel(), stats);
}

/**
 * The final verdict on `sub`, a submission of `form`, read with `model` (the workspace's,
 * from `workspaceModel`). Pure: deterministic for a given state.
 */
export function finalVerdict(form: Form, sub: Submission, model: SpamModel): SpamVerdict {
  const content = scoreSubmission(model, form, sub.fields);
  return verdictFromFirst(form, sub, content) ??
    scoreSpam({ ...spamInputOf(form, sub), content });
}

/** A form edited this recently before a submission's commit may have scored it otherwise. */
const FORM_SETTLED_MS = 60_000;

/**
 * The final verdict built from the first one the submission's commit stored (its `spam`,
 * none when clean) and the content's reading, without scoring the signals again: the
 * same verdict scoreSpam gives, since the content only adds its points and weighs the
 * links. Null when it must be scored again: the form changed around the commit, the record
 * dropped the user agent the commit scored, or links met content read as ham.
 */
export function verdictFromFirst(
  form: Form,
  sub: Submission,
  content: ContentResult,
): SpamVerdict | null {
  if (Date.parse(form.updated_at) > Date.parse(sub.created_at) - FORM_SETTLED_MS) return null;
  if (!sub.signals.via_key && !sub.signals.user_agent) return null;
  const first = sub.spam ?? { score: 0, reasons: [] };
  const links = first.reasons.filter(isLinkReason);
  if (links.length && content.p < CONTENT_HAM_P) return null;
  const part = contentPart(content.p);
  const reasons = first.reasons.filter((r) => !isLinkReason(r));
  if (part) reasons.push(part[1]);
  reasons.push(...links);
  const score = Math.min(100, first.score + (part?.[0] ?? 0));
  return { score, reasons, status: statusOf(score), content };
}
