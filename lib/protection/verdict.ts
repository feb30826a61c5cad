/**
 * The final verdict on a submission: the behavioural signals stored with it plus what the
 * workspace's content model (lib/spam) reads in its text, in one score (protection/score.ts).
 * The storing commit gives it (submissions/writer.ts), or with Akismet on the scoring job
 * (jobs/score_batch.ts); both run the `afterVerdict` hooks.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import type { AkismetAnswer } from "./akismet.ts";
import type { SpamVerdict } from "./score.ts";
import { scoreStored } from "./score_context.ts";
import { blendModel, type SpamStats } from "@/lib/spam/learn.ts";
import type { SpamModel } from "@/lib/spam/model.ts";
import { logger } from "@/lib/observe/log.ts";

/**
 * The content model for a workspace's verdicts: the global model blended with what its
 * admins' labels taught (lib/spam/learn.ts), given its statistics as read
 * (`keys.spamStats`, null when it has none). The writer keeps one per workspace (re-read
 * every second or after a label); a job run reads them once.
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
  return scoreStored(form, sub, model, secondOpinion);
}

/** A step that follows a final verdict, for the submissions one commit just gave theirs. */
export interface VerdictHook {
  /**
   * Adds writes to the verdict's commit: they happen exactly when, and only if, the verdict
   * is stored.
   */
  inCommit?: (
    deps: Omit<Deps, "writer">,
    op: Deno.AtomicOperation,
    form: Form,
    subs: Submission[],
  ) => void;
  /** Runs after the commit; best effort (a throw is logged, never retried). */
  after?: (deps: Omit<Deps, "writer">, form: Form, subs: Submission[]) => Promise<void>;
}

/**
 * Observers of every final verdict's commit in this process (the submission writer's and
 * the second-opinion job's): the bench's latency, the soak's count.
 */
export const afterVerdict: VerdictHook[] = [];

/** Runs the hooks' `after` steps for `subs`, logging a throw. */
export async function runAfterVerdict(
  deps: Omit<Deps, "writer">,
  form: Form,
  subs: Submission[],
): Promise<void> {
  for (const hook of afterVerdict) {
    if (!hook.after) continue;
    try {
      await hook.after(deps, form, subs);
    } catch (err) {
      logger.warn("after-verdict hook failed", {
        error: err instanceof Error ? err.name : "unknown",
      });
    }
  }
}
