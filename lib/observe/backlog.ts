/**
 * The job backlog, read on demand (a scrape, `/readyz`): pending jobs, how long the oldest
 * due one has waited, undelivered jobs. `JOBS=table` reads the job table; `JOBS=queue` on a
 * local KV file reads the KV queue's own SQLite tables read-only (KV has no API for them);
 * on a KV without a file (`:memory:`) the queue's backlog is unknown (null).
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Backlog } from "./types.ts";

export type { Backlog };

/** Entries counted at most per read (a larger backlog reads as this many). */
export const BACKLOG_COUNT_MAX = 10_000;

/** Reads the backlog of `deps.jobs`'s mode. */
export async function readBacklog(
  deps: Pick<Deps, "kv" | "config" | "jobs" | "now">,
): Promise<Backlog> {
  const now = deps.now();
  const jobs = deps.jobs.mode === "table"
    ? await tableBacklog(deps.kv, now)
    : queueBacklog(deps.config.kvPath, now);
  return { ...jobs, undelivered: await countKeys(deps.kv, keys.undeliveredJobs()) };
}

async function tableBacklog(kv: Deno.Kv, now: number): Promise<Omit<Backlog, "undelivered">> {
  // Keyed by due time: the first entry is the oldest due (or the next one to become due).
  const first = await kv.list<unknown>({ prefix: keys.jobsDue() }, { limit: 1 }).next();
  const dueAt = first.done ? null : first.value.key[1] as number;
  return {
    pending: first.done ? 0 : await countKeys(kv, keys.jobsDue()),
    oldestDueAgeMs: dueAt === null ? 0 : Math.max(0, now - dueAt),
  };
}

function queueBacklog(kvPath: string | undefined, now: number): Omit<Backlog, "undelivered"> {
  if (!kvPath || kvPath === ":memory:" || /^https?:\/\//.test(kvPath)) {
    return { pending: null, oldestDueAgeMs: null };
  }
  let db: DatabaseSync | null = null;
  try {
    db = new DatabaseSync(kvPath, { readOnly: true });
    // KV writes on its own connection meanwhile (WAL): wait out a brief lock, never fail on it.
    db.exec("PRAGMA busy_timeout = 1000");
    const waiting = db.prepare("SELECT count(*) AS n, min(ts) AS due FROM queue").get() as {
      n: number;
      due: number | null;
    };
    const running = db.prepare("SELECT count(*) AS n FROM queue_running").get() as { n: number };
    return {
      pending: Number(waiting.n) + Number(running.n),
      oldestDueAgeMs: waiting.due === null ? 0 : Math.max(0, now - Number(waiting.due)),
    };
  } catch {
    // Another KV file layout (a future Deno): the backlog is unknown, never an error.
    return { pending: null, oldestDueAgeMs: null };
  } finally {
    db?.close();
  }
}

async function countKeys(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix }, { limit: BACKLOG_COUNT_MAX, batchSize: 500 })) n++;
  return n;
}
