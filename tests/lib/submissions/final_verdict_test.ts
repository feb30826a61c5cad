/**
 * Without a second opinion, the commit that stores a submission gives it its final verdict
 * (signals and content, scored once): status, `spam` and `scored_at` are on the record when
 * the 201 is sent, each submission's `submission.created` event is in the workspace's feed in
 * the same commit, and a `notify_created` job is enqueued with them exactly when someone hears
 * of them. No scoring job runs. An endpoint added after the writer read the listeners makes
 * its next commit read them again (the commit checks them).
 * @module
 */
import assert from "node:assert/strict";
import type { Job } from "@/lib/jobs/queue.ts";
import { keys } from "@/lib/kv/keys.ts";
import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import { readSubmission } from "@/lib/submissions/records.ts";
import {
  makeForm,
  makeWorkspace,
  MESSAGE_FORM,
  postJson,
  storedFeed,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { assertCountersExact, recordsOf } from "@/tests/recount.ts";

/** The jobs waiting in the job table (none run: the env never starts its jobs). */
async function jobsWaiting(env: TestEnv): Promise<Job[]> {
  const out: Job[] = [];
  for await (const e of env.deps.kv.list<{ job: Job }>({ prefix: keys.jobsDue() })) {
    out.push(e.value.job);
  }
  return out;
}

const PITCH = "CLICK HERE to claim your FREE prize!!! Make money fast, guaranteed income, " +
  "visit http://cheap-prizes.xyz http://win-now.biz http://free-cash.ru today";

function post(env: TestEnv, formId: string, i: number, message: string) {
  return postJson(
    env,
    `/api/v1/submit/p/${formId}`,
    { data: { name: `Person ${i}`, email: `p${i}@mail.example`, message } },
    { "user-agent": "Mozilla/5.0", origin: "https://www.example.com" },
    `203.0.113.${i + 1}`,
  );
}

Deno.test("final verdict in the commit - scored, announced, no scoring job", async () => {
  const env = await testEnv({ JOBS: "table" });
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws, MESSAGE_FORM);
    const sent = await Promise.all(Array.from({ length: 12 }, async (_, i) => {
      const res = await post(env, form.id, i, i % 4 === 0 ? PITCH : "What are your opening hours?");
      assert.equal(res.status, 201);
      return (await res.json()).submission_id as string;
    }));
    // Final when the 201 went out: nothing ran after the commits.
    for (const [i, id] of sent.entries()) {
      const s = (await readSubmission(env.deps.kv, form.id, id))!;
      assert.equal(typeof s.scored_at, "string", `#${i} scored in its commit`);
      if (i % 4 === 0) {
        assert.notEqual(s.status, "completed", `#${i} is a pitch`);
        assert.ok(s.spam?.content, "the content model read it");
      } else {
        assert.equal(s.status, "completed", `#${i} is a question`);
      }
    }
    // No one listens and the form sends no mail: no job at all.
    assert.deepEqual(await jobsWaiting(env), []);
    // One created event per submission, carrying its final verdict.
    const feed = await storedFeed(env.deps, ws.id);
    assert.deepEqual(feed.map((e) => e.submission_id).sort(), [...sent].sort());
    const records = new Map((await recordsOf(env.deps.kv, form.id, "live")).map((s) => [s.id, s]));
    for (const e of feed) {
      assert.equal(e.type, "submission.created");
      assert.equal(e.verdict.status, records.get(e.submission_id)!.status);
      assert.equal(e.verdict.scored_at, records.get(e.submission_id)!.scored_at);
    }
    await assertCountersExact(env.deps.kv, form.id, "live");
  } finally {
    env.close();
  }
});

Deno.test("final verdict in the commit - notify job when someone listens, even a new endpoint", async () => {
  const env = await testEnv({ JOBS: "table" });
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws, MESSAGE_FORM);
    const first = await post(env, form.id, 1, "Hello");
    assert.equal(first.status, 201);
    await first.body?.cancel();
    assert.deepEqual(await jobsWaiting(env), [], "no listener yet");
    // The writer holds the listeners it read; a new endpoint moves the checked entry.
    await createWebhook(env.deps, ws.id, { url: "https://hooks.example.com/in" }, {
      actor: "test",
    });
    const second = await post(env, form.id, 2, "Hello again");
    assert.equal(second.status, 201);
    const { submission_id: id } = await second.json();
    const jobs = await jobsWaiting(env);
    assert.deepEqual(jobs.map((j) => j.type), ["notify_created"]);
    assert.deepEqual((jobs[0] as Extract<Job, { type: "notify_created" }>).ids, [id]);
    assert.ok(env.deps.writer.stats.conflicts >= 1, "the stale listeners failed the check");
    assert.equal((await storedFeed(env.deps, ws.id)).length, 2);
  } finally {
    env.close();
  }
});
