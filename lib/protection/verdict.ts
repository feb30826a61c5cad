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

/** The final verdict on `sub`, a submission of `form`. Deterministic for a given state. */
export async function finalVerdict(
  deps: Pick<Deps, "spamModel">,
  form: Form,
  sub: Submission,
): Promise<SpamVerdict> {
  const content = scoreSubmission(await deps.spamModel(), form, sub.fields);
  return scoreSpam({ ...spamInputOf(form, sub), content });
}
