/**
 * What a final verdict needs beside its score (protection/score_context.ts `scoreStored`):
 * the workspace's content model, for the storing commit (submissions/writer.ts) and, with
 * Akismet on, the scoring job (jobs/score_batch.ts).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { blendModel, type SpamStats } from "@/lib/spam/learn.ts";
import type { SpamModel } from "@/lib/spam/model.ts";

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
