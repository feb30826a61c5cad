/**
 * Reading Deno KV's queue tables straight from the SQLite file, read-only. Opening the
 * file as a KV instead would run KV's start-up recovery, which requeues messages other
 * live processes are still handling.
 * @module
 */
import { DatabaseSync } from "node:sqlite";

/** Pending and in-flight messages, and the latest in-flight deadline (epoch ms). */
export interface QueueState {
  pending: number;
  running: number;
  lastDeadline: number;
}

/** The queue's state now. */
export function queueState(kvPath: string): QueueState {
  const db = new DatabaseSync(kvPath, { readOnly: true });
  try {
    const one = (sql: string) => Number((db.prepare(sql).get() as { n: number | null }).n ?? 0);
    return {
      pending: one("SELECT count(*) AS n FROM queue"),
      running: one("SELECT count(*) AS n FROM queue_running"),
      lastDeadline: one("SELECT max(deadline) AS n FROM queue_running"),
    };
  } finally {
    db.close();
  }
}

/**
 * How many soak probe entries named `what` exist (bench/soak/queue_child.ts writes them):
 * KV encodes a string key part as its UTF-8 bytes, so the name is found in the raw key.
 */
export function probeCount(kvPath: string, what: string): number {
  const db = new DatabaseSync(kvPath, { readOnly: true });
  try {
    const row = db.prepare(
      "SELECT count(*) AS n FROM kv WHERE instr(k, CAST('soak_probe' AS BLOB)) > 0 " +
        "AND instr(k, CAST(? AS BLOB)) > 0",
    ).get(what) as { n: number };
    return Number(row.n);
  } finally {
    db.close();
  }
}

/**
 * Waits until every in-flight message's deadline passed. A message a killed process was
 * handling stays "running" until its deadline (about 5 s after delivery); KV requeues
 * expired ones when a process opens the file, or in its periodic sweep (about 60 s).
 */
export async function waitDeadlinesPassed(kvPath: string, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (queueState(kvPath).lastDeadline < Date.now()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("queue deadlines did not pass");
}

/** Polls until no message is pending or running; returns how many are left (0 = drained). */
export async function waitQueueDrained(kvPath: string, tries = 1200): Promise<number> {
  let left = -1;
  for (let i = 0; i < tries; i++) {
    const s = queueState(kvPath);
    left = s.pending + s.running;
    if (left === 0) return 0;
    await new Promise((r) => setTimeout(r, 25));
  }
  return left;
}
