/**
 * The job backlog, read on demand (a scrape, `/readyz`, the admin System page): pending
 * jobs, the oldest one's due time and how long it has waited, undelivered jobs.
 * `JOBS=table` reads the job table; `JOBS=queue` on a local KV file reads the KV queue's own
 * SQLite tables read-only (KV has no API for them); on a KV without a file (`:memory:`) the
 * queue's backlog is unknown (null).
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { isLocalKvFile } from "@/lib/ops/kv_snapshot.ts";
import type { Backlog, JobBacklog } from "./types.ts";

export type { Backlog, JobBacklog };

/** Entries counted at most per read (a larger backlog reads as this many). */
export const BACKLOG_COUNT_MAX = 10_000;

/** Reads the backlog of `deps.jobs`'s mode and the undelivered jobs. */
export async function readBacklog(
  deps: Pick<Deps, "kv" | "config" | "jobs" | "now">,
): Promise<Backlog> {
  const jobs = await jobBacklog(deps);
  return { ...jobs, undelivered: await countKeys(deps.kv, keys.undeliveredJobs()) };
}

/** Reads the pending jobs of `deps.jobs`'s mode: how many, and the oldest's due time. */
export async function jobBacklog(
  deps: Pick<Deps, "kv" | "config" | "jobs" | "now">,
): Promise<JobBacklog> {
  const now = deps.now();
  const { pending, oldestDueAt } = deps.jobs.mode === "table"
    ? await tableBacklog(deps.kv)
    : queueBacklog(deps.config.kvPath);
  return {
    pending,
    oldestDueAt,
    oldestDueAgeMs: pending === null ? null : Math.max(0, now - (oldestDueAt ?? now)),
  };
}

type Read = Pick<JobBacklog, "pending" | "oldestDueAt">;

async function tableBacklog(kv: Deno.Kv): Promise<Read> {
  // Keyed by due time: the first entry is the oldest due (or the next one to become due).
  const first = await kv.list<unknown>({ prefix: keys.jobsDue() }, { limit: 1 }).next();
  if (first.done) return { pending: 0, oldestDueAt: null };
  return { pending: await countKeys(kv, keys.jobsDue()), oldestDueAt: Number(first.value.key[1]) };
}

function queueBacklog(kvPath: string | undefined): Read {
  if (!isLocalKvFile(kvPath)) return { pending: null, oldestDueAt: null };
  let db: DatabaseSync | null = null;
  try {
    // KV writes on its own connection meanwhile (WAL): wait out a brief lock.
    db = new DatabaseSync(kvPath, { readOnly: true, timeout: 1_000 });
    const waiting = db.prepare("SELECT count(*) AS n, min(ts) AS due FROM queue").get() as {
      n: number;
      due: number | null;
    };
    const running = db.prepare("SELECT count(*) AS n FROM queue_running").get() as { n: number };
    return {
      pending: Number(waiting.n) + Number(running.n),
      oldestDueAt: waiting.due === null ? null : Number(waiting.due),
    };
  } catch {
    // Another KV file layout (a future Deno): the backlog is unknown, never an error.
    return { pending: null, oldestDueAt: null };
  } finally {
    db?.close();
  }
}

async function countKeys(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix }, { limit: BACKLOG_COUNT_MAX, batchSize: 500 })) n++;
  return n;
}
