/**
 * The bookkeeping kept beside each submission: the number and status indexes and the
 * exact counters (per status, per block of numbers, per UTC day), and the search index
 * (lib/search/entries.ts). Create, status change and delete all go through here so the
 * counters always equal a recount and search finds exactly what is stored.
 * @module
 */
import { keys, type Mode, type StatusBucket } from "@/lib/kv/keys.ts";
import { u64Delta } from "@/lib/kv/kv.ts";
import type { Status, Submission } from "@/lib/schemas.ts";
import type { SubmissionMark } from "@/lib/protection/score_context.ts";
import {
  addSearchEntries,
  removeSearchEntries,
  restatusSearchEntries,
} from "@/lib/search/entries.ts";

/** Submissions per block counter: the list walk skips whole blocks by their counts. */
export const BLOCK_SIZE = 1000;

/** The UTC day a submission was created (its `created_at` is an ISO timestamp). */
function dayOf(s: Submission): string {
  return s.created_at.slice(0, 10);
}

/**
 * The submission id an index entry points at: the status index holds the id, the number
 * index the scoring mark, which carries it.
 */
export function indexedId(value: unknown): string {
  return typeof value === "string" ? value : (value as SubmissionMark).id;
}

/**
 * Sums several deltas per KV key and writes one `sum` per key (one per key per commit);
 * also sets, once per commit, the edit stamp of every form and mode whose existing
 * submissions the commit changes (see `edited`).
 */
export class CounterDeltas {
  #deltas = new Map<string, { key: Deno.KvKey; n: number }>();
  #edited = new Map<string, Deno.KvKey>();

  /**
   * Records that the commit changes existing submissions of a form and mode: `applyTo`
   * sets their `submission_edits` stamp, which the scoring job's verdict commit checks
   * (jobs/score_batch.ts).
   */
  edited(formId: string, mode: Mode): void {
    const key = keys.submissionEdits(formId, mode);
    this.#edited.set(JSON.stringify(key), key);
  }

  /** Adds `n` (may be negative) to the counter at `key`. */
  add(key: Deno.KvKey, n: number): void {
    const id = JSON.stringify(key);
    const slot = this.#deltas.get(id);
    if (slot) slot.n += n;
    else this.#deltas.set(id, { key, n });
  }

  /** Appends the non-zero sums to `op`. */
  applyTo(op: Deno.AtomicOperation): void {
    for (const { key, n } of this.#deltas.values()) if (n !== 0) op.sum(key, u64Delta(n).value);
    for (const key of this.#edited.values()) op.set(key, true);
  }
}

function countStatus(
  c: CounterDeltas,
  formId: string,
  mode: Mode,
  bucket: StatusBucket,
  number: number,
  day: string,
  n: number,
): void {
  c.add(keys.submissionCount(formId, mode, bucket), n);
  c.add(keys.submissionBlock(formId, mode, bucket, Math.floor(number / BLOCK_SIZE)), n);
  c.add(keys.submissionDaily(formId, mode, bucket, day), n);
}

/**
 * Writes a new submission's indexes (with its scoring mark) and counts it (including the
 * analytics counter).
 */
export function indexCreated(
  op: Deno.AtomicOperation,
  c: CounterDeltas,
  s: Submission,
  mark: SubmissionMark,
): void {
  const day = dayOf(s);
  op.set(keys.submissionByNumber(s.form_id, s.mode, s.number), mark);
  op.set(keys.submissionByStatus(s.form_id, s.mode, s.status, s.number), s.id);
  countStatus(c, s.form_id, s.mode, "all", s.number, day, 1);
  countStatus(c, s.form_id, s.mode, s.status, s.number, day, 1);
  c.add(keys.analytics(s.form_id, s.mode, day, "submissions"), 1);
  addSearchEntries(op, c, s);
}

/** Moves a submission between status indexes and counters (and stamps the form's edits). */
export function indexStatusChange(
  op: Deno.AtomicOperation,
  c: CounterDeltas,
  s: Submission,
  to: Status,
): void {
  c.edited(s.form_id, s.mode);
  if (s.status === to) return;
  const day = dayOf(s);
  op.delete(keys.submissionByStatus(s.form_id, s.mode, s.status, s.number));
  op.set(keys.submissionByStatus(s.form_id, s.mode, to, s.number), s.id);
  countStatus(c, s.form_id, s.mode, s.status, s.number, day, -1);
  countStatus(c, s.form_id, s.mode, to, s.number, day, 1);
  restatusSearchEntries(op, s, to);
}

/** Removes a submission, its verdict, indexes and counts (analytics history is kept). */
export function indexDeleted(op: Deno.AtomicOperation, c: CounterDeltas, s: Submission): void {
  const day = dayOf(s);
  c.edited(s.form_id, s.mode);
  op.delete(keys.submission(s.form_id, s.id));
  op.delete(keys.submissionVerdict(s.form_id, s.id));
  op.delete(keys.submissionByNumber(s.form_id, s.mode, s.number));
  op.delete(keys.submissionByStatus(s.form_id, s.mode, s.status, s.number));
  countStatus(c, s.form_id, s.mode, "all", s.number, day, -1);
  countStatus(c, s.form_id, s.mode, s.status, s.number, day, -1);
  removeSearchEntries(op, c, s);
}
