/**
 * The step both queue-fault scenarios share: a worker process (queue_child.ts) that hangs
 * inside its handler is killed with SIGKILL once a job is in flight, then a working one
 * runs until the queue drains.
 * @module
 */
import { DENO } from "./process.ts";
import { probeCount, waitDeadlinesPassed, waitQueueDrained } from "./queue_tables.ts";

const poll = (ms = 20) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts a queue worker child on `kvPath` (with `env` added to its environment); the returned
 * function kills it (SIGKILL).
 */
function child(
  kvPath: string,
  mode: "hang" | "work",
  env: Record<string, string>,
): () => Promise<void> {
  const proc = new Deno.Command(DENO, {
    args: ["run", "-A", "bench/soak/queue_child.ts", kvPath, mode],
    cwd: new URL("../../", import.meta.url).pathname,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  return async () => {
    try {
      proc.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await proc.status;
  };
}

/**
 * Kills a hanging worker once a job is inside its handler (its delivery recorded, never
 * finished), waits out KV's in-flight deadlines, then lets a working one drain the queue.
 * Returns the deliveries seen before the kill and the messages left at the end. `env` goes
 * to the workers (e.g. a second opinion's settings).
 */
export async function killMidJobThenDrain(
  kvPath: string,
  env: Record<string, string> = {},
): Promise<{ inFlight: number; left: number }> {
  const killHang = child(kvPath, "hang", env);
  let inFlight = 0;
  try {
    for (let i = 0; i < 1000 && inFlight === 0; i++) {
      inFlight = probeCount(kvPath, "deliveries");
      if (!inFlight) await poll();
    }
  } finally {
    await killHang();
  }
  await waitDeadlinesPassed(kvPath);
  const killWork = child(kvPath, "work", env);
  let left = -1;
  try {
    left = await waitQueueDrained(kvPath);
  } finally {
    await killWork();
  }
  return { inFlight, left };
}
