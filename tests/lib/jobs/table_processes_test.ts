/**
 * `JOBS=table` across real processes sharing one KV file: a job enqueued by a process
 * that runs no jobs is run by another within a few seconds (no 60 s queue rescan), and
 * jobs whose lease-holder was killed with SIGKILL are claimed again and finished, every
 * submission scored exactly once. The scoring job exists with a second opinion (Akismet,
 * here a local fake) on: without one, the storing commit gives the final verdict.
 * @module
 */
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value } from "@/lib/kv/kv.ts";
import { makeForm, makeWorkspace, postJson, type TestEnv, testEnv } from "@/tests/helpers.ts";
import { DENO, ROOT, startServer, within } from "@/tests/processes.ts";
import { assertCountersExact, recordsOf } from "@/tests/recount.ts";
import { akismetEnv, fakeAkismet } from "@/tests/akismet_fake.ts";
import { probePrefix } from "@/bench/soak/probe.ts";

async function submitMany(env: TestEnv, formId: string, n: number): Promise<string[]> {
  return await Promise.all(Array.from({ length: n }, async (_, i) => {
    const res = await postJson(
      env,
      `/api/v1/submit/p/${formId}`,
      {
        data: { name: `P${i}`, email: `p${i}@example.com` },
      },
      { "user-agent": "Mozilla/5.0" },
      `203.0.113.${i % 200}`,
    );
    assert.equal(res.status, 201);
    return (await res.json()).submission_id as string;
  }));
}

async function scoredCount(kv: Deno.Kv, formId: string): Promise<number> {
  return (await recordsOf(kv, formId, "live")).filter((s) => s.scored_at).length;
}

async function tableLeft(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: keys.jobsDue() })) n++;
  return n;
}

function child(kvPath: string, mode: "hang" | "work", leaseMs: number) {
  const proc = new Deno.Command(DENO, {
    args: ["run", "-A", "tests/jobs_child.ts", kvPath, mode, String(leaseMs)],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  return {
    kill: async (signal: Deno.Signal = "SIGKILL") => {
      try {
        proc.kill(signal);
      } catch {
        // Already gone.
      }
      await proc.status;
    },
  };
}

Deno.test("jobs (table, 2 processes) - another process runs the jobs within seconds", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-jobs-" });
  const kvPath = `${dir}/kv.sqlite`;
  // This process serves submissions and never runs jobs; main.ts in another runs them.
  const akismet = fakeAkismet();
  const env = await testEnv({ KV_PATH: kvPath, JOBS: "table", ...akismetEnv(akismet) });
  const server = await startServer({
    ...akismetEnv(akismet),
    KV_PATH: kvPath,
    JOBS: "table",
    FORMWELL_ENV: "test",
    FORMWELL_SEED: "0",
    LOCAL_STORAGE_DIR: `${dir}/files`,
  });
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws);
    const start = Date.now();
    await submitMany(env, form.id, 30);
    const took = await within(10_000, async () => (await scoredCount(env.deps.kv, form.id)) === 30);
    assert.notEqual(took, null, "all scored by the other process");
    const elapsed = Date.now() - start;
    console.log(`30 submissions scored by another process ${elapsed} ms after the first post`);
    assert.ok(elapsed < 5_000, `${elapsed} ms`);
    await assertCountersExact(env.deps.kv, form.id, "live");
    assert.notEqual(await within(3_000, async () => (await tableLeft(env.deps.kv)) === 0), null);
    assert.ok(akismet.calls.length >= 30, "the other process asked the second opinion");
  } finally {
    await server.stop();
    env.close();
    await akismet.server.shutdown();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("jobs (table, 2 processes) - a killed lease-holder's jobs finish elsewhere, once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-jobs-" });
  const kvPath = `${dir}/kv.sqlite`;
  const akismet = fakeAkismet();
  const env = await testEnv({ KV_PATH: kvPath, JOBS: "table", ...akismetEnv(akismet) });
  const lease = 1_000;
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws);
    const ids = await submitMany(env, form.id, 40);
    const jobs = await tableLeft(env.deps.kv);
    assert.ok(jobs >= 1 && jobs < 40, `${jobs} scoring jobs for 40 submissions`);
    // A worker claims the jobs and hangs in them; it is killed holding their leases.
    const hang = child(kvPath, "hang", lease);
    let claimed = 0;
    try {
      await within(15_000, async () => {
        claimed = 0;
        for await (const e of env.deps.kv.list({ prefix: probePrefix("claimed") })) {
          claimed += u64Value(e.value) > 0 ? 1 : 0;
        }
        return claimed > 0;
      });
    } finally {
      await hang.kill("SIGKILL");
    }
    assert.ok(claimed > 0, "the killed worker held a job");
    assert.equal(await scoredCount(env.deps.kv, form.id), 0, "nothing scored by it");
    // Another worker claims them once their leases end, and finishes them.
    const work = child(kvPath, "work", lease);
    try {
      const took = await within(
        15_000,
        async () => (await scoredCount(env.deps.kv, form.id)) === 40,
      );
      assert.notEqual(took, null, "every submission scored");
      const stamps = async () =>
        (await env.deps.kv.getMany(
          ids.slice(0, 10).map((id) => keys.submissionVerdict(form.id, id)),
        ))
          .map((e) => e.versionstamp);
      const first = await stamps();
      assert.notEqual(await within(3_000, async () => (await tableLeft(env.deps.kv)) === 0), null);
      // Past another lease: no job ran again and wrote a record a second time.
      await new Promise((r) => setTimeout(r, lease + 200));
      assert.deepEqual(await stamps(), first, "each record written once by its verdict");
    } finally {
      await work.kill("SIGTERM");
    }
    // Exactly once: each record was written by one verdict (its scored_at stays put, the
    // counters equal a recount), and nothing is left undelivered.
    const records = await recordsOf(env.deps.kv, form.id, "live");
    assert.deepEqual(records.map((s) => s.id).sort(), [...ids].sort());
    await assertCountersExact(env.deps.kv, form.id, "live");
    let undelivered = 0;
    for await (const _ of env.deps.kv.list({ prefix: keys.undeliveredJobs() })) undelivered++;
    assert.equal(undelivered, 0);
  } finally {
    env.close();
    await akismet.server.shutdown();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
