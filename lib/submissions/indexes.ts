/**
 * The bookkeeping kept beside each submission: the number and status indexes and the
 * exact counters (per status, per block of numbers, per UTC day), and the search index
 * (lib/search/postings.ts). Create, status change and delete all go through here so the
 * counters always equal a recount and search finds exactly what is stored; a commit that
 * deletes or re-labels calls `CounterDeltas.load` before `applyTo`.
 * @module
 */
import { keys, type Mode, type StatusBucket } from "@/lib/kv/keys.ts";
import { getManyChunked, u64Delta } from "@/lib/kv/kv.ts";
import type { Status, Submission } from "@/lib/schemas.ts";
import type { SubmissionMark } from "@/lib/protection/score_context.ts";
import { searchEntriesOf } from "@/lib/search/entries.ts";
import { GroupRewrites, NewGroups } from "@/lib/search/postings.ts";

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
 * submissions the commit changes (see `edited`), and the commit's search postings: new
 * groups, and the rewrites of deletes and status changes (`load` reads those first).
 */
export class CounterDeltas {
  #deltas = new Map<string, { key: Deno.KvKey; n: number }>();
  #edited = new Map<string, Deno.KvKey>();
  #groups = new NewGroups();
  #rewrites: GroupRewrites;

  /** `rewrites`: groups a caller has loaded already (it checks the edit stamp itself). */
  constructor(rewrites = new GroupRewrites()) {
    this.#rewrites = rewrites;
  }

  /** The commit's new search postings. */
  get groups(): NewGroups {
    return this.#groups;
  }

  /** The commit's rewrites of stored search postings. */
  get rewrites(): GroupRewrites {
    return this.#rewrites;
  }

  /**
   * Reads the search groups the commit's deletes and status changes rewrite, after reading
   * and checking the edit stamp of their forms and modes (every rewrite sets it). Call
   * before `applyTo` in a commit that deletes or re-labels submissions.
   */
  async load(kv: Deno.Kv, op: Deno.AtomicOperation): Promise<void> {
    if (!this.#rewrites.pending) return;
    const scopes = this.#rewrites.scopes();
    const stamps = await getManyChunked(kv, scopes.map(([f, m]) => keys.submissionEdits(f, m)));
    for (const e of stamps) op.check(e);
    await this.#rewrites.load(kv);
  }

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
    this.#groups.applyTo(op);
    this.#rewrites.applyTo(op);
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

/** Counts a submission in (or out of) its search tokens' counters. */
function countSearch(c: CounterDeltas, s: Submission, n: number): void {
  const { tokens, shared } = searchEntriesOf(s);
  for (let i = 0; i < tokens.length; i++) {
    c.add(keys.wordCount(s.form_id, s.mode, tokens[i], shared[i]), n);
  }
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
  c.groups.add(s);
  countSearch(c, s, 1);
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
  c.rewrites.restatus(s, to);
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
  c.rewrites.remove(s);
  countSearch(c, s, -1);
}
