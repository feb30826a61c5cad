/**
 * The final verdict on a stored submission, computed by the post-commit scoring job
 * (jobs/score_batch.ts): the behavioural signals stored with it plus what the content
 * model (lib/spam) reads in its text, in one score (protection/score.ts).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import type { AkismetAnswer } from "./akismet.ts";
import { scoreSpam, type SpamVerdict } from "./score.ts";
import { spamInputOf } from "./score_context.ts";
import { scoreSubmission } from "@/lib/spam/submission_text.ts";
import { blendModel, type SpamStats } from "@/lib/spam/learn.ts";
import type { SpamModel } from "@/lib/spam/model.ts";

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
 * from `workspaceModel`) and Akismet's answer when it gave one. Pure.
 */
export function finalVerdict(
  form: Form,
  sub: Submission,
  model: SpamModel,
  secondOpinion?: AkismetAnswer | null,
): SpamVerdict {
  const content = scoreSubmission(model, form, sub.fields);
  const input = { ...spamInputOf(form, sub), content, ...(secondOpinion ? { secondOpinion } : {}) };
  return scoreSpam(model.thresholds ? { ...input, contentThresholds: model.thresholds } : input);
}
