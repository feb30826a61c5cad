/**
 * An admin's verdict on a submission: mark as spam or not spam. Its verdict key
 * (submissions/records.ts), its status index and every counter move in one checked commit
 * (submissions/indexes.ts), so the counters stay equal to a recount even against a
 * concurrent delete. A real change also appends `submission.status_changed` to the event
 * feed in that commit (lib/feed), under the id its webhooks then carry.
 * @module
 */
import { assertFormWritable } from "@/lib/workspaces/suspension.ts";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import { newId } from "@/lib/ids.ts";
import { appendFeed, type FeedHead, feedHeadKey } from "@/lib/feed/append.ts";
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
  const form = await getForm(deps, formId);
  const eventId = newId("msg");
  let previous: Status | null = null;
  const result = await commitWithRetry(deps.kv, async (op) => {
    const [entries] = await readEntries(deps.kv, formId, [submissionId]);
    const current = entries.value;
    if (!current || !form) return null;
    previous = current.status;
    const head: FeedHead = await withKvRetry(() =>
      deps.kv.get<number>(feedHeadKey(current.workspace_id, current.mode))
    );
    const counters = new CounterDeltas();
    op.check(entries.record, entries.verdict);
    indexStatusChange(op, counters, current, to);
    await counters.load(deps.kv, op);
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
    if (current.status !== to) {
      const item = { id: eventId, form, submission: next, previous_status: current.status };
      appendFeed(op, head, [{ ...item, type: "submission.status_changed" }], deps.now());
    }
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
  if (!result || !form) throw errors.notFound("Submission not found.");
  if (previous !== to) {
    await notifyQuietly(deps, [{
      type: "submission.status_changed",
      form,
      submission: result,
      previous_status: previous ?? undefined,
      event_id: eventId,
    }]);
  }
  return result;
}
