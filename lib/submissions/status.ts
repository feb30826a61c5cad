/**
 * An admin's verdict on a submission: mark as spam or not spam. Its verdict key
 * (submissions/records.ts), its status index and every counter move in one checked commit
 * (submissions/indexes.ts), so the counters stay equal to a recount even against a
 * concurrent delete.
 * @module
 */
import { assertFormWritable } from "@/lib/workspaces/suspension.ts";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { commitWithRetry } from "@/lib/kv/kv.ts";
import type { Status, Submission } from "@/lib/schemas.ts";
import { CounterDeltas, indexStatusChange } from "./indexes.ts";
import { readEntries, setVerdict } from "./records.ts";
import { getForm } from "@/lib/forms/forms.ts";
import { notifyQuietly } from "@/lib/notify/mod.ts";
import { labelOfStatus } from "@/lib/spam/learn.ts";
import { type AuditBy, auditMutation } from "@/lib/privacy/audit.ts";

/**
 * Sets a submission's status by hand. The `spam` record is kept (score and reasons stay
 * visible) and flagged `manual`, so the admin view shows the verdict was a person's.
 * Audited `submission.labelled` in the same commit when `by` is given.
 */
export async function setSubmissionStatus(
  deps: Deps,
  formId: string,
  submissionId: string,
  to: Status,
  by?: AuditBy,
): Promise<Submission> {
  await assertFormWritable(deps, formId);
  let previous: Status | null = null;
  const result = await commitWithRetry(deps.kv, async (op) => {
    const [entries] = await readEntries(deps.kv, formId, [submissionId]);
    const current = entries.value;
    if (!current) return null;
    previous = current.status;
    const counters = new CounterDeltas();
    op.check(entries.record, entries.verdict);
    indexStatusChange(op, counters, current, to);
    counters.applyTo(op);
    const label = labelOfStatus(to);
    if (label) {
      // The workspace learns from the label in a job, never in the request (lib/spam/learn.ts).
      deps.jobs.enqueue(op, {
        type: "learn_label",
        workspace_id: current.workspace_id,
        form_id: formId,
        submission_id: submissionId,
        label,
        previous: current.spam?.manual ? labelOfStatus(current.status) : null,
      });
    }
    const next: Submission = {
      ...current,
      status: to,
      spam: {
        ...current.spam,
        score: current.spam?.score ?? 0,
        reasons: current.spam?.reasons ?? [],
        scored_at: current.spam?.scored_at ?? new Date(deps.now()).toISOString(),
        manual: true,
      },
    };
    setVerdict(op, next);
    if (by && current.status !== to) {
      auditMutation(op, deps.now(), {
        workspaceId: current.workspace_id,
        action: "submission.labelled",
        ...by,
        details: { form: formId, submission: submissionId, from: current.status, to },
      });
    }
    return next;
  });
  if (!result) throw errors.notFound("Submission not found.");
  const form = previous !== to ? await getForm(deps, formId) : null;
  if (form) {
    await notifyQuietly(deps, [{
      type: "submission.status_changed",
      form,
      submission: result,
      previous_status: previous ?? undefined,
    }]);
  }
  return result;
}
