/**
 * Capped logs: the outbox, the email log and each endpoint's delivery log. A log's entries
 * sit under one KV prefix (ids sort by time), each kept {@linkcode COPY_KEEP_MS} and
 * indexed by the notification event it belongs to (for erasure); readers list the newest
 * `keep`, and a prune on about one write in {@linkcode TRIM_EVERY} deletes the rest.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import { COPY_KEEP_MS, indexCopy, listKept } from "./copies.ts";

/** One capped log: where its entries live and how many of the newest it keeps. */
export interface CappedLog {
  prefix: Deno.KvKey;
  keep: number;
}

/** A log is pruned on about one write in this many (a prune reads the whole log). */
const TRIM_EVERY = 16;

/** Adds an entry to `op`: expiring with the copies, indexed by its event when it has one. */
export function addEntry(
  op: Deno.AtomicOperation,
  key: Deno.KvKey,
  value: unknown,
  eventId?: string,
): void {
  op.set(key, value, { expireIn: COPY_KEEP_MS });
  if (eventId) indexCopy(op, eventId, key);
}

/** Writes one entry (`key` lies under the log's prefix) in its own commit, then prunes. */
export async function appendEntry(
  kv: Deno.Kv,
  log: CappedLog,
  key: Deno.KvKey,
  value: unknown,
  eventId?: string,
): Promise<void> {
  const op = kv.atomic();
  addEntry(op, key, value, eventId);
  if (!(await withKvRetry(() => op.commit())).ok) throw new Error("log entry commit failed");
  await trimLog(kv, log);
}

/**
 * Deletes all but the newest `keep` entries, on about one call in {@linkcode TRIM_EVERY}:
 * between prunes a log holds a few more, and readers list only the newest `keep`.
 * `random` is injectable for tests.
 */
export async function trimLog(
  kv: Deno.Kv,
  log: CappedLog,
  random: () => number = Math.random,
): Promise<void> {
  if (random() * TRIM_EVERY >= 1) return;
  let i = 0;
  let op = kv.atomic();
  let n = 0;
  for await (const e of kv.list({ prefix: log.prefix }, { reverse: true })) {
    if (++i <= log.keep) continue;
    op.delete(e.key);
    if (++n % 100 === 0) {
      await op.commit();
      op = kv.atomic();
    }
  }
  if (n % 100) await op.commit();
}

/** A log's entries, newest first: at most `limit` (its `keep` by default), none expired. */
export async function listLog<T extends { at: string }>(
  deps: Pick<Deps, "kv" | "now">,
  log: CappedLog,
  limit = log.keep,
): Promise<T[]> {
  return await listKept<T>(deps, log.prefix, limit);
}
