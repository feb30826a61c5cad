/**
 * The final verdict on a stored submission, computed by the post-commit scoring job
 * (jobs/score_batch.ts): the behavioural signals stored with it plus what the content
 * model (lib/spam) reads in its text, in one score (protection/score.ts).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import { scoreSpam, type SpamVerdict } from "./score.ts";
import { spamInputOf } from "./score_context.ts";
import { scoreSubmission } from "@/lib/spam/submission_text.ts";
import { blendModel, type SpamStats } from "@/lib/spam/learn.ts";
import type { SpamModel } from "@/lib/spam/model.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";

/**
 * The content model for a workspace's verdicts: the global model blended with what its
 * admins' labels taught (lib/spam/learn.ts). One KV read; a job run calls it once.
 */
export async function workspaceModel(
  deps: Pick<Deps, "spamModel" | "kv">,
  workspaceId: string,
): Promise<SpamModel> {
  const [global, stats] = await Promise.all([
    deps.spamModel(),
    withKvRetry(() => deps.kv.get<SpamStats>(keys.spamStats(workspaceId))),
  ]);
  return blendModel(global, stats.value);
}

/**
 * The final verdict on `sub`, a submission of `form`, read with `model` (the workspace's,
 * from `workspaceModel`; the global model when omitted). Deterministic for a given state.
 */
export async function finalVerdict(
  deps: Pick<Deps, "spamModel">,
  form: Form,
  sub: Submission,
  model?: SpamModel,
): Promise<SpamVerdict> {
  const content = scoreSubmission(model ?? await deps.spamModel(), form, sub.fields);
  return scoreSpam({ ...spamInputOf(form, sub), content });
}
