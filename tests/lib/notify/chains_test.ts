/**
 * At most one retry chain per delivery job: a job run again after its attempt was logged
 * (a redelivered message) sends nothing; a second run while the first still waits on a slow
 * endpoint (a job-table lease that ended, KV's queue requeuing a message it thinks stalled)
 * sends nothing and enqueues nothing, in both job modes, against a real slow HTTP server.
 * And an attempt's deadline covers a TCP connect the endpoint never answers.
 */
import assert from "node:assert/strict";
import { loadConfig } from "@/lib/config.ts";
import type { Deps } from "@/lib/deps.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import { TableJobs } from "@/lib/jobs/table_runner.ts";
import { keys } from "@/lib/kv/keys.ts";
import { deliverWebhookJob, type Delivery, listDeliveries } from "@/lib/notify/deliver.ts";
import { postPinned } from "@/lib/notify/http1.ts";
import type { DeliverWebhookJob } from "@/lib/notify/jobs.ts";
import { notifySubmission } from "@/lib/notify/mod.ts";
import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import { buildDeps } from "@/lib/runtime.ts";
import { within } from "@/tests/processes.ts";
import { makeForm, makeWorkspace, testEnv } from "../../helpers.ts";
import { receiver, submissionOf, waitFor } from "./_support.ts";

const CLI = { actor: "cli" };

/** Records the delivery jobs `deps` enqueues (then enqueues them as usual). */
function recordDeliveries(deps: Deps): DeliverWebhookJob[] {
  const seen: DeliverWebhookJob[] = [];
  const enqueue = deps.jobs.enqueue.bind(deps.jobs);
  deps.jobs.enqueue = (op, job, opts) => {
    if (job.type === "deliver_webhook") seen.push(job);
    enqueue(op, job, opts);
  };
  return seen;
}

/** A live submission event of a new workspace's form, to a webhook at `url`. */
async function oneEvent(deps: Deps, url: string) {
  const ws = await makeWorkspace(deps);
  const form = await makeForm(deps, ws);
  const hook = await createWebhook(deps, ws.id, { url }, CLI);
  const submission = submissionOf(form, { name: "Ada", email: "ada@example.com" });
  const eventId = await notifySubmission(deps, { type: "submission.created", form, submission });
  assert.ok(eventId);
  return { hook, eventId };
}

/**
 * A real endpoint that holds its first request until another one arrives or `holdMs`
 * passed, and answers 503 to it and to any request arriving meanwhile (a second run of the
 * same attempt); requests after that get 200 at once.
 */
function slowFirst(holdMs: number) {
  const arrived: number[] = [];
  const statuses: number[] = [];
  let release: (() => void) | null = null;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    await req.text();
    let status = 200;
    if (arrived.push(Date.now()) === 1) {
      const { promise, resolve } = Promise.withResolvers<void>();
      release = resolve;
      const timer = setTimeout(resolve, holdMs);
      await promise;
      clearTimeout(timer);
      release = null;
      status = 503;
    } else if (release) {
      release();
      status = 503;
    }
    statuses.push(status);
    return new Response(status === 200 ? "ok" : "slow", { status });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/hook`,
    arrived,
    statuses,
    close: () => server.shutdown(),
  };
}

/** The log as [attempt, outcome], oldest first. */
function summary(log: Delivery[]): [number, string][] {
  return log.map((d): [number, string] => [d.attempt, d.outcome]).reverse();
}

Deno.test("chains - a delivery job run again after its attempt was logged sends nothing, enqueues nothing", async () => {
  const env = await testEnv({ WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_DELAYS: "600000" });
  const rx = receiver(() => 503);
  const enqueued = recordDeliveries(env.deps);
  try {
    const { hook } = await oneEvent(env.deps, rx.url);
    // No job runner here: the test runs the job itself, twice, as a redelivered message would.
    const [job] = enqueued;
    await deliverWebhookJob(env.deps, job);
    await deliverWebhookJob(env.deps, job);
    assert.equal(rx.got.length, 1, "one POST");
    assert.deepEqual(enqueued.map((j) => j.attempt), [0, 1], "one retry");
    assert.deepEqual(summary(await listDeliveries(env.deps, hook.id)), [[1, "retrying"]]);
  } finally {
    env.close();
    await rx.close();
  }
});

Deno.test("chains (JOBS=table) - a lease that ends while a slow endpoint holds the attempt starts no second chain", async () => {
  const env = await testEnv({ WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_DELAYS: "100" }, {
    jobs: (kv) => new TableJobs(kv, { leaseMs: 1_000, pollMs: 50 }),
  });
  const rx = slowFirst(3_000);
  const runs: number[] = [];
  env.deps.jobs.start(async (msg, ctx) => {
    const job = msg as DeliverWebhookJob;
    if (job.type === "deliver_webhook") runs.push(job.attempt);
    await dispatch(env.deps, msg, ctx);
  });
  try {
    const { hook } = await oneEvent(env.deps, rx.url);
    await waitFor(
      "the retry delivered",
      async () => (await listDeliveries(env.deps, hook.id)).some((d) => d.outcome === "delivered"),
      20_000,
    );
    // Every job ran: none is left in the table (a deferred run included).
    const drained = await within(25_000, async () => {
      for await (const _ of env.deps.kv.list({ prefix: keys.jobsDue() })) return false;
      return true;
    });
    assert.ok(runs.filter((a) => a === 0).length >= 2, `the lease ended mid-attempt: ${runs}`);
    assert.deepEqual(rx.statuses, [503, 200], "one POST per attempt");
    assert.deepEqual(summary(await listDeliveries(env.deps, hook.id)), [
      [1, "retrying"],
      [2, "delivered"],
    ]);
    assert.notEqual(drained, null, "the job table drained");
  } finally {
    await env.deps.jobs.stop();
    env.close();
    await rx.close();
  }
});

/**
 * KV (SQLite) gives a dequeued message a deadline 5 s after it was due and, in Deno 2.9,
 * never extends it; an instance opening the file requeues messages past it.
 */
const KV_INFLIGHT_DEADLINE_MS = 5_000;

Deno.test("chains (JOBS=queue) - a message requeued by a second instance while a slow endpoint holds it starts no second chain", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-chains-" });
  const env = {
    KV_PATH: `${dir}/formwell.kv`,
    SECRET: "chains-test-secret-chains-test-secret-01",
    FORMWELL_ENV: "test",
    JOBS: "queue",
    WEBHOOK_ALLOW_PRIVATE: "1",
    WEBHOOK_RETRY_DELAYS: "100",
    LOCAL_STORAGE_DIR: `${dir}/files`,
  };
  const rx = slowFirst(8_000);
  const runs: { instance: string; attempt: number; done: boolean }[] = [];
  const instances: { kv: Deno.Kv; deps: Deps; listening: Promise<void> }[] = [];
  const open = async (name: string) => {
    const kv = await Deno.openKv(env.KV_PATH);
    const deps = await buildDeps(kv, loadConfig(env));
    const listening = kv.listenQueue(async (msg) => {
      const job = msg as DeliverWebhookJob;
      const run = { instance: name, attempt: job.attempt, done: false };
      if (job.type === "deliver_webhook") runs.push(run);
      await dispatch(deps, msg);
      run.done = true;
    });
    instances.push({ kv, deps, listening });
    return deps;
  };
  try {
    const a = await open("a");
    const { hook } = await oneEvent(a, rx.url);
    await waitFor("the first attempt reaches the endpoint", () => rx.arrived.length === 1);
    // Not a guess: past this bound a KV opening the file requeues the message.
    await new Promise((r) =>
      setTimeout(r, rx.arrived[0] + KV_INFLIGHT_DEADLINE_MS + 500 - Date.now())
    );
    await open("b");
    await waitFor(
      "the retry delivered",
      async () => (await listDeliveries(a, hook.id)).some((d) => d.outcome === "delivered"),
      30_000,
    );
    // Settled: the first attempt ran again (requeued), and that run was deferred and dropped.
    const settled = await within(30_000, () =>
      Promise.resolve(
        runs.every((r) => r.done) && runs.filter((r) => r.attempt === 0).length >= 3,
      ));
    assert.deepEqual(rx.statuses, [503, 200], "one POST per attempt");
    assert.deepEqual(summary(await listDeliveries(a, hook.id)), [[1, "retrying"], [
      2,
      "delivered",
    ]]);
    assert.notEqual(settled, null, `the requeued run ended: ${JSON.stringify(runs)}`);
  } finally {
    for (const i of instances) {
      i.deps.storage.close?.();
      i.kv.close();
      await i.listening;
    }
    await rx.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test({
  name: "chains - an attempt's deadline covers a TCP connect the endpoint never answers",
  // The abandoned connect ends at the kernel's next SYN retry, after this test.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // A listener that never accepts: once its backlog is full, the kernel drops new SYNs.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    const filled: Deno.Conn[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      while (true) {
        const c = await Promise.race([
          Deno.connect({ hostname: "127.0.0.1", port }),
          new Promise<null>((r) => timer = setTimeout(() => r(null), 300)),
        ]);
        clearTimeout(timer);
        if (!c) break;
        filled.push(c);
      }
      const outcome = await Promise.race([
        postPinned({
          url: new URL(`http://127.0.0.1:${port}/hook`),
          address: "127.0.0.1",
          headers: {},
          body: "{}",
          deadline: AbortSignal.timeout(500),
          maxBody: 100,
        }).then(() => "answered", (e) => String(e)),
        new Promise<string>((r) =>
          timer = setTimeout(() => r("still connecting after 5 s"), 5_000)
        ),
      ]);
      clearTimeout(timer);
      assert.match(outcome, /timeout/);
    } finally {
      for (const c of filled) c.close();
      listener.close();
    }
  },
});
