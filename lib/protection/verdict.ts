/**
 * The final verdict on a stored submission, computed by the post-commit scoring job
 * (jobs/score_batch.ts). Today it is the behavioural score from the submission's signals
 * (the same as its first, in-commit status); the content model joins here, as the
 * optional `content` input of protection/score.ts.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import { scoreSpam, type SpamVerdict } from "./score.ts";
import { spamInputOf } from "./score_context.ts";

/** The final verdict on `sub`, a submission of `form`. Deterministic for a given state. */
export function finalVerdict(
  _deps: Pick<Deps, "kv" | "now">,
  form: Form,
  sub: Submission,
): Promise<SpamVerdict> {
  // The content model's seam: compute its figure here (it may read the workspace's
  // statistics through `_deps`) and pass it as `{ ...input, content }`.
  const input = spamInputOf(form, sub);
  return Promise.resolve(scoreSpam(input));
}
