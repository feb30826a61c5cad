/**
 * How the bench and the soak observe a process without hooks in it: the bench's metrics
 * port (passed as `DepsOverrides.metrics`) sees each final verdict's delay, and the soak's
 * wrapped KV counts each verdict in the commit that stores it.
 * @module
 */
import assert from "node:assert/strict";
import { countingVerdicts, probePrefix } from "@/bench/soak/probe.ts";
import { verdictRecorder } from "@/bench/verdicts.ts";
import { loadConfig } from "@/lib/config.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import { u64Value } from "@/lib/kv/kv.ts";
import { buildDeps } from "@/lib/runtime.ts";
import { createApp } from "@/routes/mod.ts";
import { akismetEnv, fakeAkismet } from "@/tests/akismet_fake.ts";
import {
  contactData,
  makeForm,
  makeKey,
  makeWorkspace,
  postJson,
  testEnv,
} from "@/tests/helpers.ts";
import { within } from "@/tests/processes.ts";

Deno.test("bench observers - the metrics port override sees every final verdict's delay", async () => {
  const delays: number[] = [];
  const env = await testEnv({}, { metrics: (configured) => verdictRecorder(delays, configured) });
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    const key = await makeKey(env.deps, ws);
    const started = Date.now();
    for (let i = 0; i < 3; i++) {
      const res = await postJson(env, `/api/v1/submit/p/${form.id}`, contactData(i), {
        Authorization: `Bearer ${key}`,
      });
      assert.equal(res.status, 201);
      await res.body?.cancel();
    }
    // The storing commits gave the verdicts: one delay each, within the test's own time.
    assert.equal(delays.length, 3);
    for (const ms of delays) assert.ok(ms >= 0 && ms <= Date.now() - started, `${ms} ms`);
    // Without METRICS_TOKEN the port counts no request and /metrics stays hidden.
    const res = await env.request("/metrics");
    assert.equal(res.status, 404);
    await res.body?.cancel();
  } finally {
    env.close();
  }
});

Deno.test("bench observers - with Akismet, the scoring job's verdicts reach the port too", async () => {
  const akismet = fakeAkismet();
  const delays: number[] = [];
  const env = await testEnv(akismetEnv(akismet), {
    metrics: (configured) => verdictRecorder(delays, configured),
  });
  env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws);
    const key = await makeKey(env.deps, ws);
    for (let i = 0; i < 2; i++) {
      const res = await postJson(env, `/api/v1/submit/p/${form.id}`, contactData(i), {
        Authorization: `Bearer ${key}`,
      });
      assert.equal(res.status, 201);
      await res.body?.cancel();
    }
    assert.notEqual(await within(10_000, () => Promise.resolve(delays.length === 2)), null);
  } finally {
    await env.deps.jobs.stop();
    env.close();
    await akismet.server.shutdown();
  }
});

Deno.test("soak probe - a wrapped KV counts each verdict once, in the commit storing it", async () => {
  const akismet = fakeAkismet();
  const config = loadConfig({
    KV_PATH: ":memory:",
    SECRET: "test-secret-test-secret-test-secret-0123",
    FORMWELL_ENV: "test",
    LOCAL_STORAGE_DIR: Deno.makeTempDirSync({ prefix: "formwell-test-" }),
    ...akismetEnv(akismet),
  });
  const kv = await Deno.openKv(":memory:");
  const deps = await buildDeps(countingVerdicts(kv), config);
  const app = createApp(deps);
  deps.jobs.start((msg, ctx) => dispatch(deps, msg, ctx));
  const scored = async () => {
    const counts: number[] = [];
    for await (const e of kv.list({ prefix: probePrefix("scored") })) {
      counts.push(u64Value(e.value));
    }
    return counts;
  };
  try {
    const ws = await makeWorkspace(deps, "pro");
    const form = await makeForm(deps, ws);
    const ids = await Promise.all([0, 1, 2].map(async (i) => {
      const res = await app.request(`http://localhost/api/v1/submit/p/${form.id}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(contactData(i)),
      });
      assert.equal(res.status, 201);
      return (await res.json()).submission_id as string;
    }));
    assert.notEqual(await within(10_000, async () => (await scored()).length === 3), null);
    // A second delivery of the job finds them scored: nothing is counted again.
    await dispatch(deps, { type: "score_batch", form_id: form.id, mode: "live", ids });
    assert.deepEqual(await scored(), [1, 1, 1]);
  } finally {
    await deps.jobs.stop();
    kv.close();
    await akismet.server.shutdown();
  }
});
