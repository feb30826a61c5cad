/**
 * A form's queue of submissions waiting for the writer's next commit (submissions/
 * writer.ts): what a queued submission is, what the queue remembers between commits, and
 * how the next batch is packed within one atomic operation's limits.
 * @module
 */
import { errors } from "@/lib/errors.ts";
import { type Batcher, CommitBudget, type KeyCost, type Split } from "@/lib/kv/batcher.ts";
import { searchCost } from "@/lib/search/entries.ts";
import type { MarkWindow } from "@/lib/protection/score_context.ts";
import { limitId } from "@/lib/ratelimit/rate_limit.ts";
import { partChecks, type Stored } from "./commit.ts";
import { quotaCap } from "./quota.ts";
import type { WriteOutcome } from "./types.ts";

/** Submissions per commit at most. */
const MAX_BATCH_ITEMS = 64;

/**
 * Mutations and key bytes one submission takes in its commit: its search entries counted
 * exactly (search/entries.ts; `counted` holds the batch's search counters so far) and the
 * rest (record, indexes, counters, idempotency, email index, feed event, parts) bounded
 * generously, so a batch stays inside KV's limits.
 */
function itemKeyCost(item: Item, counted: Set<string>): KeyCost & { fresh: string[] } {
  const d = item.draft;
  const search = searchCost({ id: item.id, fields: d.fields, form_id: d.form.id }, counted);
  const other = 8 + 2 * (d.parts?.length ?? 0);
  return {
    mutations: search.mutations + other,
    keyBytes: search.keyBytes + other * 100,
    fresh: search.fresh,
  };
}

/** A queued submission and the promise waiting on it. */
export interface Item extends Stored {
  /** Set once resolved or rejected; a settled item is never written afterwards. */
  settled: boolean;
  /** Its rate-limit keys JSON-encoded, once (see limitIdsOf). */
  limitIds?: string[];
  resolve: (o: WriteOutcome) => void;
  reject: (e: unknown) => void;
}

/** A commit of this writer that checked the sequence the one before it left. */
export interface OwnCommit {
  versionstamp: string;
  /** The Idempotency-Keys it wrote. */
  idempotencyKeys: Set<string>;
}

/** One form and mode's queue of pending submissions, and what its commits left. */
export interface FormQueue {
  items: Batcher<Item>;
  /** The form's sequence entry as this writer's last commit left it (null: read it). */
  seq: Deno.KvEntryMaybe<number> | null;
  /**
   * This writer's commits since `seq` was last read, each checked against the one before
   * (so no other process wrote in between). Cleared whenever `seq` is.
   */
  ownCommits: OwnCommit[];
  /**
   * The scoring marks of the form's latest submissions (oldest first), extended by this
   * writer's commits. Marks never change, so when the sequence is read again only the
   * numbers after the last one kept are read (see catchUpMarks). Null until first read.
   */
  recent: MarkWindow | null;
}

/** Commits remembered in `ownCommits`; an older snapshot just reads its record. */
export const MAX_OWN_COMMITS = 64;

/**
 * Forgets the queue's cached sequence (after a commit threw, so what it left is unknown, or
 * failed its check, so another instance moved it): the next attempt reads it, and the
 * idempotency records, again.
 */
export function forgetSequence(q: FormQueue): void {
  q.seq = null;
  q.ownCommits = [];
}

/**
 * Whether an Idempotency-Key's record is known absent: the request found none at a
 * sequence versionstamp of the queue's own commits, and no commit since wrote the key
 * (any other writer would have moved the sequence, which the commit's check catches).
 */
export function knownAbsent(q: FormQueue, item: Item): boolean {
  const idem = item.draft.idempotency;
  if (!idem?.seenAt) return false;
  for (let j = q.ownCommits.length - 1; j >= 0; j--) {
    if (q.ownCommits[j].versionstamp === idem.seenAt) return true;
    if (q.ownCommits[j].idempotencyKeys.has(idem.key)) return false;
  }
  return false;
}

/** KV's own size refusals are the client's oversized submission (413), not a server error. */
export function asClientError(err: unknown): unknown {
  const msg = err instanceof Error ? err.message : "";
  return /too large|too big|size limit|exceeds/i.test(msg)
    ? errors.payloadTooLarge("The submission is too large to store.")
    : err;
}

/** The rate-limit budgets (JSON-encoded keys) the items spend from. */
export function budgetIds(items: Item[]): string[] {
  return items.flatMap(limitIdsOf);
}

/** An item's rate-limit keys, JSON-encoded (kept on the item: batches are packed often). */
export function limitIdsOf(item: Item): string[] {
  return item.limitIds ??= item.draft.limits.map(limitId);
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

/**
 * Packs the next batch: as many pending items as fit the size and count bounds and the
 * operation's `checks` (kv/batcher.ts maxChecks; a check each is reserved for the sequence,
 * the workspace's feed head and, with a capped plan, the quota counter; each distinct
 * rate-limit budget and each part's checks add theirs). A second item with an
 * Idempotency-Key already in the batch waits for the next batch, where it finds the first
 * one's record and replays it.
 */
export function takeBatch(pending: Item[], checks: number): Split<Item> {
  const batch: Item[] = [];
  const rest: Item[] = [];
  const idemKeys = new Set<string>();
  const first = pending[0]?.draft;
  const budget = new CommitBudget({
    checks,
    items: MAX_BATCH_ITEMS,
    // The sequence, the workspace's feed head, and a capped plan's quota.
    reserved: first && quotaCap(first) !== null ? 3 : 2,
  });
  // The batch's search counters (summed once however many submissions share one).
  const counted = new Set<string>();
  // The batch's distinct rate-limit keys (one check each), kept as it grows.
  const limitIds = new Set<string>();
  for (const item of pending) {
    const d = item.draft;
    const idem = d.idempotency?.key;
    const ids = limitIdsOf(item);
    const fresh = ids.filter((id, i) => !limitIds.has(id) && ids.indexOf(id) === i).length;
    const checks = partChecks(d.parts) + fresh;
    const cost = itemKeyCost(item, counted);
    if (!budget.fits(checks, d.size, cost) || (batch.length && idem && idemKeys.has(idem))) {
      rest.push(item);
      continue;
    }
    batch.push(item);
    budget.add(checks, d.size, cost);
    for (const c of cost.fresh) counted.add(c);
    for (const id of ids) limitIds.add(id);
    if (idem) idemKeys.add(idem);
  }
  return { batch, rest };
}
