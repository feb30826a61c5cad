/**
 * The two job runners (KV queue, KV job table) pass the same behavioural tests: a job
 * enqueued in a committed operation runs once; one in an operation that failed never
 * exists; a delayed job waits; a job that keeps failing is retried on its schedule and
 * lands under `undelivered_jobs`; `dispatch` routes and drops invalid messages.
 * @module
 */
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import type { Job } from "@/lib/jobs/queue.ts";
import { QueueJobs } from "@/lib/jobs/queue_runner.ts";
import { TableJobs } from "@/lib/jobs/table_runner.ts";
import type { JobRunner, Jobs } from "@/lib/jobs/types.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import { ConfigError, loadConfig } from "@/lib/config.ts";
import { within } from "@/tests/processes.ts";
import { testEnv } from "@/tests/helpers.ts";

const MODES = {
  queue: (kv: Deno.Kv) => new QueueJobs(kv),
  table: (kv: Deno.Kv) => new TableJobs(kv, { pollMs: 100 }),
};

async function tableLeft(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: keys.jobsDue() })) n++;
  return n;
}

async function undelivered(kv: Deno.Kv): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const e of kv.list({ prefix: keys.undeliveredJobs() })) out.push(e.value);
  return out;
}

const job = (path: string): Job => ({ type: "cleanup_upload", path });

for (const [mode, make] of Object.entries(MODES)) {
  Deno.test(`jobs (${mode}) - a committed job runs once, a failed commit's never`, async () => {
    const kv = await Deno.openKv(":memory:");
    const jobs: Jobs = make(kv);
    const seen: unknown[] = [];
    const runner: JobRunner = (msg) => {
      seen.push(msg);
      return Promise.resolve();
    };
    try {
      jobs.start(runner);
      const lost = kv.atomic().check({ key: ["x"], versionstamp: "00000000000000000000" });
      jobs.enqueue(lost, job("never"));
      assert.equal((await lost.commit()).ok, false);
      const op = kv.atomic();
      jobs.enqueue(op, job("a"));
      jobs.enqueue(op, job("b"));
      assert.ok((await op.commit()).ok);
      const took = await within(5_000, () => Promise.resolve(seen.length >= 2));
      assert.notEqual(took, null, "both jobs ran");
      // Nothing else comes: no duplicate, and the failed operation's job does not exist.
      await within(300, () => Promise.resolve(seen.length > 2));
      assert.deepEqual(
        seen.map((m) => (m as { path: string }).path).sort(),
        ["a", "b"],
      );
      if (mode === "table") {
        assert.notEqual(await within(2_000, async () => (await tableLeft(kv)) === 0), null);
      }
    } finally {
      await jobs.stop();
      kv.close();
    }
  });

  Deno.test(`jobs (${mode}) - a delayed job waits for its time`, async () => {
    const kv = await Deno.openKv(":memory:");
    const jobs = make(kv);
    let ranAt = 0;
    try {
      jobs.start(() => {
        ranAt = Date.now();
        return Promise.resolve();
      });
      const op = kv.atomic();
      const at = Date.now();
      jobs.enqueue(op, job("later"), { delay: 700 });
      assert.ok((await op.commit()).ok);
      assert.notEqual(await within(5_000, () => Promise.resolve(ranAt > 0)), null);
      assert.ok(ranAt - at >= 650, `ran after ${ranAt - at} ms`);
    } finally {
      await jobs.stop();
      kv.close();
    }
  });

  Deno.test(`jobs (${mode}) - a failing job is retried, then kept undelivered`, async () => {
    const kv = await Deno.openKv(":memory:");
    const jobs = make(kv);
    let attempts = 0;
    try {
      jobs.start(() => {
        attempts++;
        return Promise.reject(new Error("always fails"));
      });
      const op = kv.atomic();
      jobs.enqueue(op, job("doomed"), { backoffSchedule: [20, 20] });
      assert.ok((await op.commit()).ok);
      const took = await within(15_000, async () => (await undelivered(kv)).length > 0);
      assert.notEqual(took, null, "landed undelivered");
      assert.deepEqual(await undelivered(kv), [job("doomed")]);
      assert.equal(attempts, 3, "one attempt and two retries");
      if (mode === "table") assert.equal(await tableLeft(kv), 0);
    } finally {
      await jobs.stop();
      kv.close();
    }
  });
}

Deno.test("jobs (table) - a job whose lease ran out is claimed again and finished", async () => {
  const kv = await Deno.openKv(":memory:");
  // The first instance claims the job and never finishes it (as if killed mid-job).
  const stuck = new TableJobs(kv, { leaseMs: 300, pollMs: 50 });
  const other = new TableJobs(kv, { leaseMs: 300, pollMs: 50 });
  let stuckRuns = 0;
  let done = 0;
  try {
    stuck.start(() => {
      stuckRuns++;
      return new Promise(() => {});
    });
    const op = kv.atomic();
    stuck.enqueue(op, job("held"));
    assert.ok((await op.commit()).ok);
    assert.notEqual(await within(3_000, () => Promise.resolve(stuckRuns === 1)), null);
    // Stop polling in the stuck instance (its job stays in its hands, never finished).
    void stuck.stop();
    other.start(() => {
      done++;
      return Promise.resolve();
    });
    assert.notEqual(await within(5_000, () => Promise.resolve(done === 1)), null, "re-claimed");
    assert.notEqual(await within(2_000, async () => (await tableLeft(kv)) === 0), null);
  } finally {
    await other.stop();
    kv.close();
  }
});

Deno.test("jobs - dispatch drops invalid messages and routes valid ones", async () => {
  const env = await testEnv();
  try {
    // Invalid: logged and dropped (no throw, so nothing retries it).
    await dispatch(env.deps, { type: "nope" });
    await dispatch(env.deps, "junk");
    // Valid, about a path that is not an upload: the handler has nothing to do.
    await dispatch(env.deps, { type: "delete_files", paths: ["not/an/upload"] });
    // A scoring job of a form that no longer exists is done at once.
    await dispatch(env.deps, {
      type: "score_batch",
      form_id: "frm_missing",
      workspace_id: "wsp_missing",
      mode: "live",
      ids: ["sub_x"],
    });
  } finally {
    env.close();
  }
});

Deno.test("jobs - JOBS: queue on a local KV, table on KV Connect or Deploy, or as set", () => {
  assert.equal(loadConfig({ KV_PATH: "./data/x.kv" }).jobs, "queue");
  assert.equal(loadConfig({ KV_PATH: ":memory:" }).jobs, "queue");
  assert.equal(loadConfig({ KV_PATH: "https://kv.example.com" }).jobs, "table");
  assert.equal(loadConfig({ KV_PATH: "http://127.0.0.1:4512" }).jobs, "table");
  assert.equal(
    loadConfig({ DENO_DEPLOYMENT_ID: "x", STORAGE: "s3", S3_BUCKET: "b" }).jobs,
    "table",
  );
  assert.equal(loadConfig({ KV_PATH: "./x.kv", JOBS: "table" }).jobs, "table");
  assert.equal(loadConfig({ KV_PATH: "http://127.0.0.1:4512", JOBS: "queue" }).jobs, "queue");
  assert.throws(() => loadConfig({ JOBS: "cron" }), ConfigError);
});
