/**
 * An admin's verdict on a submission: mark as spam or not spam. The record, its status
 * index and every counter move in one checked commit (submissions/indexes.ts), so the
 * counters stay equal to a recount even against a concurrent delete.
 * @module
 */
import { assertFormWritable } from "@/lib/workspaces/suspension.ts";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import type { Status, Submission } from "@/lib/schemas.ts";
import { CounterDeltas, indexStatusChange } from "./indexes.ts";

/**
 * Sets a submission's status by hand. The `spam` record is kept (score and reasons stay
 * visible) and flagged `manual`, so the admin view shows the verdict was a person's.
 */
export async function setSubmissionStatus(
  deps: Pick<Deps, "kv" | "now">,
  formId: string,
  submissionId: string,
  to: Status,
): Promise<Submission> {
  await assertFormWritable(deps, formId);
  const key = keys.submission(formId, submissionId);
  const result = await commitWithRetry(deps.kv, async (op) => {
    const entry = await withKvRetry(() => deps.kv.get<Submission>(key));
    const current = entry.value;
    if (!current) return null;
    const counters = new CounterDeltas();
    op.check(entry);
    indexStatusChange(op, counters, current, to);
    counters.applyTo(op);
    const next: Submission = {
      ...current,
      status: to,
      spam: {
        score: current.spam?.score ?? 0,
        reasons: current.spam?.reasons ?? [],
        scored_at: current.spam?.scored_at ?? new Date(deps.now()).toISOString(),
        manual: true,
      },
    };
    op.set(key, next);
    return next;
  });
  if (!result) throw errors.notFound("Submission not found.");
  return result;
}
