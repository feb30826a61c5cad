/**
 * Queue faults. A handler that keeps throwing is retried on KV's schedule and its job
 * lands under the `keysIfUndelivered` key `enqueueJob` set. Jobs a process was handling
 * when it was killed with SIGKILL are delivered again after a restart, and finish; so are
 * scoring jobs, every submission ending scored exactly once (queue_scoring.ts).
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { loadConfig } from "@/lib/config.ts";
import type { Deps } from "@/lib/deps.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value } from "@/lib/kv/kv.ts";
import { enqueueJob, type Job } from "@/lib/jobs/queue.ts";
import { buildDeps } from "@/lib/runtime.ts";
import { soakEnv } from "./process.ts";
import { killMidJobThenDrain } from "./queue_kill.ts";
import { probeKey } from "./probe.ts";
import type { Figures } from "./store.ts";
import { scoringJobFaults } from "./queue_scoring.ts";

/** Sizes of a queue-fault run; no `backoffSchedule` means KV's default (about 96 s). */
export interface QueueFaultOptions {
  backoffSchedule?: number[];
  jobs: number;
  /** Submissions whose scoring jobs a killed worker held (queue_scoring.ts); default 60. */
  scored?: number;
}

const poll = (ms = 20) => new Promise((r) => setTimeout(r, ms));

/** KV reads fail: the real handler, dispatched for real, throws on every attempt. */
function failingReads(deps: Deps): Deps {
  const kv = new Proxy(deps.kv, {
    get(target, prop) {
      if (prop === "get" || prop === "getMany" || prop === "list") {
        return () => {
          throw new Error("injected KV read failure");
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { ...deps, kv };
}

/** Part one: a throwing handler is retried, then its job is kept as undelivered. */
async function throwingHandler(dir: string, schedule: number[] | undefined) {
  const kvPath = `${dir}/throw.kv`;
  const kv = await Deno.openKv(kvPath);
  // A well-formed upload path, so the handler reads KV (and meets the injected failure).
  const job: Job = { type: "cleanup_upload", path: "soak/missing" };
  let attempts = 0;
  let stored: unknown = null;
  try {
    const deps = await buildDeps(kv, loadConfig({ ...soakEnv(kvPath, 8000, dir) }));
    const failing = failingReads(deps);
    const listening = kv.listenQueue(async (msg) => {
      attempts++;
      await dispatch(failing, msg);
    });
    const op = kv.atomic();
    enqueueJob(op, job, { backoffSchedule: schedule });
    if (!(await op.commit()).ok) throw new Error("enqueue failed");
    const budget = (schedule ?? [100, 1000, 5000, 30000, 60000]).reduce((a, b) => a + b, 0);
    const started = Date.now();
    while (Date.now() - started < budget + 30_000) {
      const found = [];
      for await (const e of kv.list({ prefix: keys.undeliveredJobs() })) found.push(e.value);
      if (found.length) {
        stored = found[0];
        break;
      }
      await poll(50);
    }
    kv.close();
    await listening;
  } catch (err) {
    try {
      kv.close();
    } catch {
      // Already closed.
    }
    throw err;
  }
  const expected = (schedule?.length ?? 5) + 1;
  return { attempts, expected, undelivered: isDeepStrictEqual(stored, job) };
}

/** Part two: jobs in flight in a killed process are redelivered to the next one. */
async function killedWorker(dir: string, jobs: number) {
  const kvPath = `${dir}/kill.kv`;
  const ids = Array.from({ length: jobs }, (_, i) => `soak/job${i}`);
  {
    const kv = await Deno.openKv(kvPath);
    const op = kv.atomic();
    for (const path of ids) enqueueJob(op, { type: "cleanup_upload", path });
    const ok = (await op.commit()).ok;
    kv.close();
    if (!ok) throw new Error("enqueue failed");
  }
  const { inFlight, left } = await killMidJobThenDrain(kvPath);
  const kv = await Deno.openKv(kvPath);
  let done = 0;
  let redelivered = 0;
  try {
    for (const id of ids) {
      if ((await kv.get(probeKey("done", id))).value) done++;
      if (u64Value((await kv.get(probeKey("deliveries", id))).value) > 1) redelivered++;
    }
  } finally {
    kv.close();
  }
  return { inFlight, done, redelivered, left };
}

/** Runs both parts; returns their figures. */
export async function queueFaultSoak(opts: QueueFaultOptions): Promise<Figures> {
  const dir = await Deno.makeTempDir({ prefix: "formwell-queue-" });
  try {
    const thrown = await throwingHandler(dir, opts.backoffSchedule);
    const killed = await killedWorker(dir, opts.jobs);
    const scoring = await scoringJobFaults(dir, opts.scored ?? 60);
    return {
      requests: opts.jobs + 1,
      acknowledged: opts.jobs + 1,
      stored: killed.done + (thrown.undelivered ? 1 : 0),
      lost: opts.jobs - killed.done + (thrown.undelivered ? 0 : 1) + scoring.scoring_unscored,
      duplicated: scoring.scoring_scored_more_than_once,
      "5xx": 0,
      throwing_attempts: thrown.attempts,
      throwing_expected_attempts: thrown.expected,
      landed_undelivered: thrown.undelivered,
      jobs: opts.jobs,
      in_flight_at_kill: killed.inFlight,
      redelivered_after_restart: killed.redelivered,
      finished_after_restart: killed.done,
      left_in_queue: killed.left,
      ...scoring,
    };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
