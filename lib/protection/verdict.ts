/**
 * What a final verdict needs beside its score (protection/score_context.ts `scoreStored`):
 * the workspace's content model, and the `afterVerdict` hooks that the storing commit
 * (submissions/writer.ts) and, with Akismet on, the scoring job (jobs/score_batch.ts) run.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
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
