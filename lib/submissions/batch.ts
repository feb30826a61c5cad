/**
 * The pieces of a group commit that need no KV: what a submission to be written is, how
 * pending submissions are packed into one atomic operation within KV's limits, and how a
 * batch settles items that cannot go in it. Used by submissions/writer.ts.
 * @module
 */
import { AppError, errors } from "@/lib/errors.ts";
import { type IdempotencyRecord, replayOrConflict } from "./idempotency.ts";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value, utcMonth } from "@/lib/kv/kv.ts";
import { planOf } from "@/lib/workspaces/plans.ts";
import { limitKey } from "@/lib/ratelimit/rate_limit.ts";
import type { NumberedMark } from "@/lib/protection/score_context.ts";
import type { SubmissionDraft, WriteOutcome } from "./types.ts";

export type { CreatedBody, Rider, SubmissionDraft, WriteOutcome } from "./types.ts";

/**
 * Within this many submissions of the monthly cap, commits check the quota counter (see
 * settleQuota): more than any burst of concurrent batches could spend at once.
 */
const QUOTA_CHECK_MARGIN = 1_000;

/** KV allows 10 checks per atomic operation (remote KV enforces it). */
const MAX_CHECKS = 10;
/** Stay well inside KV's 800 KiB per atomic operation. */
const MAX_BATCH_BYTES = 600 * 1024;
/** Submissions per commit at most. */
const MAX_BATCH_ITEMS = 64;
/**
 * How long a batch keeps retrying conflicts with other instances before its items get 503.
 * A time, not a count of attempts: an instance committing to the same form wins most races
 * while its cached state lets it commit without a read, and under sustained load a count
 * of 25 starved the other instance's batches (0.3 to 0.8% of its requests ended in 503).
 */
export const RETRY_WINDOW_MS = 5_000;
/** The longest backoff between attempts: the other instance keeps committing meanwhile. */
export const MAX_BACKOFF_MS = 10;

/** A queued submission and the promise waiting on it. */
export interface Item {
  draft: SubmissionDraft;
  id: string;
  /** Set once resolved or rejected; a settled item is never written afterwards. */
  settled: boolean;
  resolve: (o: WriteOutcome) => void;
  reject: (e: unknown) => void;
}

/** One form and mode's queue of pending submissions. */
export interface FormQueue {
  pending: Item[];
  running: boolean;
  seq: Deno.KvEntryMaybe<number> | null;
  /**
   * The sequence's versionstamps since `seq` was last read, each produced by one of this
   * writer's commits checked against the one before (so no other process wrote in between),
   * with the Idempotency-Keys that commit wrote. Cleared whenever `seq` is.
   */
  chain: { vs: string; idem: Set<string> }[];
  /**
   * The scoring marks of the form's latest submissions (oldest first), extended by this
   * writer's commits. Marks never change, so when the sequence is read again only the
   * numbers after the last one kept are read (see catchUpMarks). Null until first read.
   */
  marks: NumberedMark[] | null;
}

/**
 * Forgets the queue's cached sequence (after a commit threw, so what it left is unknown, or
 * failed its check, so another instance moved it): the next attempt reads it, and the
 * idempotency records, again.
 */
export function forget(q: FormQueue): void {
  q.seq = null;
  q.chain = [];
}

/** Commits remembered in a queue's chain; an older snapshot just reads its record. */
export const MAX_CHAIN = 64;

/**
 * Whether a draft's request saw the sequence at a versionstamp of the queue's chain and no
 * commit since wrote its key: then its record is still absent (any other writer would have
 * moved the sequence, which the commit's check of the cached sequence catches).
 */
export function seenUnchanged(q: FormQueue, d: SubmissionDraft): boolean {
  const seen = d.idempotency?.seenAt;
  if (!seen) return false;
  for (let j = q.chain.length - 1; j >= 0; j--) {
    if (q.chain[j].vs === seen) return true;
    if (q.chain[j].idem.has(d.idempotency!.key)) return false;
  }
  return false;
}

/** The KV key of a draft's idempotency record. */
export function idempotencyKey(d: SubmissionDraft): Deno.KvKey {
  return keys.idempotency(d.form.id, d.mode, d.idempotency!.key);
}

/** The monthly quota of a draft's workspace, or null when unlimited or in test mode. */
export function quotaCap(d: SubmissionDraft): number | null {
  return d.mode === "live" ? planOf(d.workspace.plan).submissionsPerMonth : null;
}

/** The monthly quota counter a draft counts toward. */
export function quotaKey(d: SubmissionDraft, now: number): Deno.KvKey {
  return keys.monthlySubmissions(d.workspace.id, utcMonth(now));
}

/** KV's own size refusals are the client's oversized submission (413), not a server error. */
export function asClientError(err: unknown): unknown {
  const msg = err instanceof Error ? err.message : "";
  return /too large|too big|size limit|exceeds/i.test(msg)
    ? errors.payloadTooLarge("The submission is too large to store.")
    : err;
}

/** Applies every item's riders; rejects and returns the items a rider refused. */
export async function applyRiders(op: Deno.AtomicOperation, items: Item[]): Promise<Set<Item>> {
  const refused = new Set<Item>();
  for (const item of items) {
    try {
      for (const rider of item.draft.riders ?? []) await rider.apply(op, item.id);
    } catch (err) {
      item.reject(err);
      refused.add(item);
    }
  }
  return refused;
}

/** The rate-limit budgets (JSON-encoded keys) the items spend from. */
export function budgetIds(items: Item[]): string[] {
  return items.flatMap((i) => i.draft.limits.map((s) => JSON.stringify(limitKey(s))));
}

/** Rejects (429) the items whose rate-limit spends were refused; returns the rest. */
export function settleRefused(items: Item[], allowed: boolean[]): Item[] {
  let cursor = 0;
  return items.filter((item) => {
    const n = item.draft.limits.length;
    const ok = allowed.slice(cursor, cursor + n).every(Boolean);
    cursor += n;
    if (!ok) item.reject(errors.rateLimited());
    return ok;
  });
}

const NO_IDS: ReadonlySet<string> = new Set();

/**
 * Takes the next batch: as many pending items as fit the check, size and count bounds.
 * A second item with an Idempotency-Key already in the batch waits for the next batch,
 * where it finds the first one's record and replays it.
 */
export function takeBatch(q: FormQueue): Item[] {
  const batch: Item[] = [];
  const rest: Item[] = [];
  const idemKeys = new Set<string>();
  const first = q.pending[0]?.draft;
  // The sequence, and the quota counter when the plan has a cap (checked near it).
  let checks = first && quotaCap(first) !== null ? 2 : 1;
  let bytes = 0;
  // The batch's distinct rate-limit keys (one check each), kept as it grows.
  const limitIds = new Set<string>();
  for (const item of q.pending) {
    const d = item.draft;
    const idem = d.idempotency?.key;
    const extra = (d.riders ?? []).reduce((n, r) => n + r.checks, 0);
    const fresh = d.limits.length
      ? new Set(d.limits.map((s) => JSON.stringify(limitKey(s))).filter((id) => !limitIds.has(id)))
      : NO_IDS;
    const fits = batch.length === 0 ||
      (batch.length < MAX_BATCH_ITEMS &&
        checks + extra + limitIds.size + fresh.size <= MAX_CHECKS &&
        bytes + d.size <= MAX_BATCH_BYTES && !(idem && idemKeys.has(idem)));
    if (!fits) {
      rest.push(item);
      continue;
    }
    batch.push(item);
    checks += extra;
    bytes += d.size;
    for (const id of fresh) limitIds.add(id);
    if (idem) idemKeys.add(idem);
  }
  q.pending = rest;
  return batch;
}

/**
 * Resolves items whose Idempotency-Key already has a live stored result (an expired one
 * still lingering, KV expiry being lazy, counts as none); returns the rest.
 */
export function settleIdempotent(
  items: Item[],
  read: ReadonlyMap<string, Deno.KvEntryMaybe<unknown>>,
  now: number,
): Item[] {
  const settled = new Set<Item>();
  for (const item of items) {
    if (!item.draft.idempotency) continue;
    const entry = read.get(JSON.stringify(idempotencyKey(item.draft))) as
      | Deno.KvEntryMaybe<IdempotencyRecord>
      | undefined;
    const rec = entry?.value;
    if (!rec || rec.expires_at <= now) continue;
    settled.add(item);
    try {
      item.resolve({ replayed: true, body: replayOrConflict(rec, item.draft.idempotency!.hash) });
    } catch (err) {
      item.reject(err);
    }
  }
  return items.filter((i) => !settled.has(i));
}

/**
 * Refuses live submissions past the plan's monthly quota. Within QUOTA_CHECK_MARGIN of
 * the cap it also returns the counter's entry for the commit to check, so concurrent
 * commits (another form of the workspace, another instance) cannot both spend the last
 * units; further from the cap no check is needed, and none serialises the workspace.
 */
export function settleQuota(
  items: Item[],
  read: ReadonlyMap<string, Deno.KvEntryMaybe<unknown>>,
  now: number,
): { items: Item[]; check: Deno.KvEntryMaybe<unknown> | null } {
  const first = items[0]?.draft;
  const cap = first ? quotaCap(first) : null;
  if (!first || cap === null) return { items, check: null };
  const entry = read.get(JSON.stringify(quotaKey(first, now)))!;
  let used = u64Value(entry.value);
  const check = cap - used <= QUOTA_CHECK_MARGIN ? entry : null;
  const kept = items.filter((item) => {
    if (used < cap) {
      used++;
      return true;
    }
    item.reject(
      new AppError(
        429,
        "quota_exceeded",
        `This form's workspace reached its ${cap} submissions this month.`,
      ),
    );
    return false;
  });
  return { items: kept, check };
}
