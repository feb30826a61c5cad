/**
 * A client's pending pool: the bytes of its unattached upload grants in one workspace,
 * capped at PENDING_POOL_BYTES. The pool is a few counters per client, one per ten minutes
 * in which its grants fall due: a grant adds its size to the counter of its due time when
 * issued and takes it back when attached or removed. A counter stops counting at the end of
 * its ten minutes (no grant in it can be attached any more) and the hourly sweep deletes it.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError } from "@/lib/errors.ts";
import { keys } from "@/lib/kv/keys.ts";
import { deleteKeys, u64Minus, u64Value } from "@/lib/kv/kv.ts";

/** Bytes of unattached grants one client address may hold in one workspace. */
export const PENDING_POOL_BYTES = 50 * 1024 * 1024;
/** The span of time one pool counter covers. */
export const POOL_BUCKET_MS = 10 * 60 * 1000;

/** What a grant in a pool carries: whose pool, and the counter it is in. */
export interface Pooled {
  workspace_id: string;
  size_bytes: number;
  /** The client (rate-limit identity) whose pool holds the bytes until attached. */
  pending_identity?: string;
  /** The counter (`keys.uploadPool`) holding the bytes; absent when in no counter. */
  pool_bucket?: number;
}

/** The counter a grant due at `dueAt` joins: the one whose span ends at or after it. */
export function poolBucketOf(dueAt: number): number {
  return Math.ceil(dueAt / POOL_BUCKET_MS);
}

/** Whether a counter still counts at `now` (its span has not ended). */
function counts(bucket: number, now: number): boolean {
  return bucket * POOL_BUCKET_MS > now;
}

/**
 * The counters of a client's pool that count at `now`, for grants lasting `ttlMs`: at most
 * `ttlMs / POOL_BUCKET_MS + 1` keys (7 for an hour), read with one getMany.
 */
export function poolKeys(
  workspaceId: string,
  identity: string,
  now: number,
  ttlMs: number,
): Deno.KvKey[] {
  const out: Deno.KvKey[] = [];
  for (let b = Math.floor(now / POOL_BUCKET_MS) + 1; b <= poolBucketOf(now + ttlMs); b++) {
    out.push(keys.uploadPool(b, workspaceId, identity));
  }
  return out;
}

/**
 * 429 when the pool's counters (entries of `poolKeys`) plus `size` would pass
 * PENDING_POOL_BYTES. Read, not reserved: concurrent requests of one client may pass it
 * together by their own sizes (the per-address upload-URL rate limit bounds how many).
 */
export function checkPool(entries: Deno.KvEntryMaybe<unknown>[], size: number): void {
  let pending = 0;
  for (const e of entries) pending += u64Value(e.value);
  if (pending + size <= PENDING_POOL_BYTES) return;
  throw new AppError(
    429,
    "quota_exceeded",
    `Uploads waiting for a submission from your network are limited to ${
      PENDING_POOL_BYTES / (1024 * 1024)
    } MB per workspace. Submit the form with your files, or wait up to an hour.`,
  );
}

/** The counter holding a grant's bytes, or null when it is in none. */
function counterOf(g: Pooled): Deno.KvKey | null {
  if (g.pending_identity === undefined || g.pool_bucket === undefined) return null;
  return keys.uploadPool(g.pool_bucket, g.workspace_id, g.pending_identity);
}

/** Adds a new grant's bytes to its counter in `op` (the grant's own commit). */
export function joinPool(op: Deno.AtomicOperation, g: Pooled): void {
  const key = counterOf(g);
  if (key) op.sum(key, BigInt(g.size_bytes));
}

/**
 * Takes a grant's bytes back from its counter in `op`, the commit that attaches or removes
 * it (so once per grant). A counter that stopped counting is left for the sweep.
 */
export function leavePool(op: Deno.AtomicOperation, g: Pooled, now: number): void {
  const key = counterOf(g);
  if (key && counts(g.pool_bucket!, now)) op.sum(key, u64Minus(g.size_bytes).value);
}

/**
 * Deletes the counters that stopped counting over an hour ago (a grant's removal decided
 * before its counter's end has long committed by then); returns how many.
 */
export async function sweepPools(deps: Deps): Promise<number> {
  const end = [...keys.uploadPools(), Math.floor(deps.now() / POOL_BUCKET_MS) - 6];
  const stale: Deno.KvKey[] = [];
  for await (const e of deps.kv.list({ prefix: keys.uploadPools(), end })) stale.push(e.key);
  await deleteKeys(deps.kv, stale);
  return stale.length;
}
