import assert from "node:assert/strict";
import { testEnv } from "@/tests/helpers.ts";
import { dispatch } from "@/lib/jobs/mod.ts";

async function ready(env: Awaited<ReturnType<typeof testEnv>>) {
  const res = await env.request("/readyz");
  assert.equal(res.headers.get("cache-control"), "no-store");
  return { status: res.status, body: await res.json() };
}

Deno.test("readyz - ready once the job runner runs, not before nor after", async () => {
  const env = await testEnv({ JOBS: "table" });
  try {
    const before = await ready(env);
    assert.equal(before.status, 503);
    assert.equal(before.body.ok, false);
    assert.deepEqual(before.body.reasons, ["The job runner is not running."]);
    env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
    const up = await ready(env);
    assert.equal(up.status, 200);
    assert.equal(up.body.ok, true);
    assert.equal(up.body.kv, "ok");
    assert.deepEqual(up.body.jobs, { mode: "table", runner: "alive" });
    assert.deepEqual(up.body.reasons, []);
    await env.deps.jobs.stop();
    const after = await ready(env);
    assert.equal(after.status, 503);
    assert.deepEqual(after.body.jobs, { mode: "table", runner: "stopped" });
  } finally {
    await env.deps.jobs.stop();
    env.close();
  }
});

Deno.test("readyz - a job waiting past READY_MAX_JOB_AGE_S makes it 503", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-ready-" });
  // The service's clock runs an hour ahead of KV's, so a job KV holds back for ten minutes
  // has, to the service, waited fifty.
  const env = await testEnv(
    { JOBS: "queue", KV_PATH: `${dir}/kv.sqlite`, READY_MAX_JOB_AGE_S: "600" },
    { now: () => Date.now() + 3_600_000 },
  );
  try {
    env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
    assert.equal((await ready(env)).status, 200);
    const op = env.deps.kv.atomic();
    env.deps.jobs.enqueue(op, { type: "cleanup_upload", path: "x" }, { delay: 600_000 });
    assert.ok((await op.commit()).ok);
    const late = await ready(env);
    assert.equal(late.status, 503);
    assert.equal(late.body.reasons.length, 1);
    assert.match(
      late.body.reasons[0],
      /^The oldest due job has waited 3\d{3} s \(bound: 600 s\)\.$/,
    );
    assert.equal(late.body.backlog.pending, 1);
  } finally {
    env.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readyz - 503 when KV does not answer", async () => {
  const env = await testEnv({ JOBS: "table" });
  env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
  await env.deps.jobs.stop();
  env.deps.kv.close();
  const res = await ready(env);
  assert.equal(res.status, 503);
  assert.equal(res.body.kv, "failed");
  assert.ok(res.body.reasons.includes("KV did not answer."), res.body.reasons.join(" "));
});
