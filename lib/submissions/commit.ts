/**
 * What one submission's commit writes, every key of it, each concern's writes owned by its
 * folder and called from here (the writer, submissions/writer.ts, only queues, commits and
 * retries; what the commit checks before writing is in commit_checks.ts, against what
 * commit_context.ts read). A batch of submissions of one form and mode shares one atomic
 * operation (key names as in kv/keys.ts):
 *
 * - record and indexes (submissions/indexes.ts): `submission`, `submissionByNumber` (holding
 *   the scoring mark), `submissionByStatus`;
 * - counters and quota (submissions/indexes.ts, submissions/quota.ts): the per-status,
 *   block, daily and analytics counters, and `monthlySubmissions` (live and not spam;
 *   checked near the plan's cap);
 * - the form's sequence `submissionSeq` (checked; the submissions' numbers);
 * - idempotency (submissions/idempotency.ts): `idempotency`, with an `Idempotency-Key`;
 * - rate-limit spend (ratelimit/rate_limit.ts `planSpends`, from commit_checks.ts for the
 *   batch): `rateLimit` per budget (checked);
 * - email index (privacy/email_index.ts): `submissionByEmail` per email value;
 * - verdict (protection/score_context.ts): the status, `spam` and `scored_at` on the record;
 * - announcement (without a second opinion): a `submission.created` event per submission in
 *   the workspace's feed (feed/append.ts: `feedSeq` checked and set, `feedEvent` keys of up to
 *   EVENTS_PER_KEY events), and one `notify_created` job when someone hears of one of them
 *   (notify/hearers.ts, given the workspace's `webhookListeners` as read with the feed head:
 *   every change of them sets the head, so its check covers them);
 * - other folders' parts (`CommitPart`, from admit): `spentCaptcha` (protection/gates.ts,
 *   checked), the attached files' upload grants and storage counter (uploads/attach.ts);
 * - with a second opinion (Akismet) on: the verdict is a first one from the signals alone,
 *   without `scored_at`, and one `score_batch` job per batch (jobs/score_batch.ts) writes the
 *   final verdict and announces it.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { addEmailIndex } from "@/lib/privacy/email_index.ts";
import { privateWho, storedSignals } from "@/lib/privacy/ip.ts";
import {
  markOf,
  type MarkWindow,
  numbered,
  scoreInContext,
} from "@/lib/protection/score_context.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import { appendFeed, type FeedHead } from "@/lib/feed/append.ts";
import { createdEventId } from "@/lib/notify/events.ts";
import type { Listeners } from "@/lib/notify/webhooks.ts";
import { heard, whoHears } from "@/lib/notify/hearers.ts";
import type { SpamModel } from "@/lib/spam/model.ts";
import { writeIdempotency } from "./idempotency.ts";
import { CounterDeltas, indexCreated } from "./indexes.ts";
import type { CommitPart, CreatedBody, SubmissionDraft } from "./types.ts";

/** A queued submission: its draft and the id it is stored under. */
export interface Stored {
  draft: SubmissionDraft;
  id: string;
}

/**
 * What a commit that gives final verdicts reads of the form's workspace: its content model,
 * its feed head (for the mode) and its webhook listeners.
 */
export interface FinalState {
  model: SpamModel;
  feed: FeedHead;
  listeners: Listeners;
}

/** What the submissions of one commit share. */
export class SubmissionsCommit {
  readonly counters = new CounterDeltas();
  readonly created: string;
  /** The last number given (the sequence's value once committed). */
  number: number;
  /** The submissions written, as stored, in order. */
  readonly subs: Submission[] = [];
  /** The queued submissions they were written from, in the same order. */
  readonly stored: Stored[] = [];
  /** The feed head's value once committed (final verdicts only). */
  feedSeq = 0;

  /** `final` when the commit gives final verdicts; null when the scoring job will. */
  constructor(
    readonly op: Deno.AtomicOperation,
    readonly now: number,
    lastNumber: number,
    /** The scoring marks of the form's latest submissions: this commit's are added to it. */
    readonly marks: MarkWindow,
    readonly final: FinalState | null,
  ) {
    this.created = new Date(now).toISOString();
    this.number = lastNumber;
  }

  /** Writes one submission (numbered next) and every key it owns; returns its 201 body. */
  add(deps: Pick<Deps, "secret">, item: Stored): CreatedBody {
    const { op, counters, created } = this;
    const d = item.draft;
    const sub: Submission = {
      id: item.id,
      form_id: d.form.id,
      workspace_id: d.workspace.id,
      mode: d.mode,
      number: ++this.number,
      fields: d.fields,
      metadata: d.metadata,
      status: "completed",
      created_at: created,
      files: d.files,
      signals: d.signals,
      ...(d.ownerMail ? { owner_mail: d.ownerMail } : {}),
    };
    const mark = markOf(sub);
    mark.who = privateWho(deps.secret, mark.who); // a digest: no address in the index
    const verdict = scoreInContext(sub, mark, this.marks, d.form, this.final?.model);
    // A clean submission keeps no verdict: there is nothing to show or to explain.
    if (verdict.score > 0) {
      sub.status = verdict.status;
      sub.spam = { score: verdict.score, reasons: verdict.reasons, scored_at: created };
      if (verdict.content) sub.spam.content = verdict.content;
    }
    if (this.final) sub.scored_at = created;
    this.marks.push(numbered(mark, sub.number));
    this.subs.push(sub);
    this.stored.push(item);
    sub.signals = storedSignals(d.form, sub.signals); // what the form lets us keep
    addEmailIndex(op, deps.secret, d.form, sub);
    op.set(keys.submission(sub.form_id, sub.id), sub);
    indexCreated(op, counters, sub, mark);
    // Spam (as scored in this commit) does not count toward the quota.
    if (d.mode === "live" && sub.status !== "spam") {
      counters.add(keys.monthlySubmissions(d.workspace.id, created.slice(0, 7)), 1);
    }
    const body: CreatedBody = {
      success: true,
      submission_id: sub.id,
      submission_number: sub.number,
    };
    writeIdempotency(op, d, body, this.now);
    return body;
  }

  /**
   * Ends the commit: the counters, the form's new sequence, and the announcement of the
   * final verdicts (or one scoring job for all its submissions, see the module's note).
   */
  finish(deps: Omit<Deps, "writer">): void {
    const first = this.stored[0].draft;
    this.counters.applyTo(this.op);
    this.op.set(keys.submissionSeq(first.form.id, first.mode), this.number);
    if (this.final) {
      this.#announce(deps, this.final, first.form);
      return;
    }
    deps.jobs.enqueue(this.op, {
      type: "score_batch",
      form_id: first.form.id,
      workspace_id: first.workspace.id,
      mode: first.mode,
      ids: this.stored.map((i) => i.id),
    });
  }

  /**
   * The final verdicts' events, and the notification job when someone hears of them. An
   * endpoint added meanwhile moved the feed head (notify/webhooks.ts `setListeners`), so the
   * commit retries with both read again instead of missing the events.
   */
  #announce(
    deps: Omit<Deps, "writer">,
    final: FinalState,
    form: Form,
  ): void {
    const { op, subs } = this;
    this.feedSeq = appendFeed(
      op,
      final.feed,
      subs.map((s) => ({
        id: createdEventId(s.id),
        type: "submission.created" as const,
        form,
        submission: s,
      })),
      this.now,
    );
    const listening = Object.entries(final.listeners.value);
    if (subs.some((s) => heard(whoHears(form, "submission.created", s, listening)))) {
      deps.jobs.enqueue(op, {
        type: "notify_created",
        form_id: form.id,
        ids: subs.map((s) => s.id),
      });
    }
  }
}

/**
 * Applies every item's other parts (CommitPart); rejects and returns the items a part
 * refused (their writes are in the operation: the caller builds it again without them).
 */
export async function applyParts<T extends Stored & { reject: (e: unknown) => void }>(
  op: Deno.AtomicOperation,
  items: T[],
): Promise<Set<T>> {
  const refused = new Set<T>();
  for (const item of items) {
    try {
      for (const part of item.draft.parts ?? []) await part.apply(op, item.id);
    } catch (err) {
      item.reject(err);
      refused.add(item);
    }
  }
  return refused;
}

/** The checks a draft's other parts add. */
export function partChecks(parts: CommitPart[] | undefined): number {
  return (parts ?? []).reduce((n, p) => n + p.checks, 0);
}
