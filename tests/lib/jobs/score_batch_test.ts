/**
 * The post-commit scoring job (it gives the final verdicts when a second opinion, Akismet,
 * is on: here against a local fake), in both job modes (KV queue and job table): one job per
 * group commit; the final verdict moves status, index and counters together and sets
 * `scored_at` (shown as `metadata.scored_at`); re-labelled and deleted submissions are
 * left alone; a second delivery changes nothing; a job that keeps failing lands
 * undelivered and the submissions keep their first status.
 * @module
 */
import { readSubmission, type StoredVerdict } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import type { Job } from "@/lib/jobs/queue.ts";
import { QueueJobs } from "@/lib/jobs/queue_runner.ts";
import { TableJobs } from "@/lib/jobs/table_runner.ts";
import type { Jobs } from "@/lib/jobs/types.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import { deleteSubmissions } from "@/lib/submissions/delete.ts";
import { seedSubmissions } from "@/bench/seed.ts";
import { setSubmissionStatus } from "@/lib/submissions/status.ts";
import {
  contactData,
  makeForm,
  makeKey,
  makeWorkspace,
  postJson,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { within } from "@/tests/processes.ts";
import { assertCountersExact, recordsOf } from "@/tests/recount.ts";
import { akismetEnv, fakeAkismet } from "@/tests/akismet_fake.ts";

const MODES = {
  queue: (kv: Deno.Kv, backoff?: number[]): Jobs => new QueueJobs(kv, { backoffSchedule: backoff }),
  table: (kv: Deno.Kv, backoff?: number[]): Jobs =>
    new TableJobs(kv, { pollMs: 100, backoffSchedule: backoff }),
};

/** Starts `env`'s jobs with the real dispatch, counting the scoring jobs run. */
function startJobs(env: TestEnv, deps: Deps = env.deps): { scoreJobs: Job[] } {
  const jobs = env.deps.jobs;
  const seen = { scoreJobs: [] as Job[] };
  jobs.start(async (msg, ctx) => {
    await dispatch(deps, msg, ctx);
    if ((msg as Job).type === "score_batch") seen.scoreJobs.push(msg as Job);
  });
  return seen;
}

async function allScored(kv: Deno.Kv, formId: string, n: number): Promise<boolean> {
  const records = await recordsOf(kv, formId, "live");
  return records.length === n && records.every((s) => s.scored_at);
}

async function enqueueScore(deps: Deps, form: Form, ids: string[]): Promise<void> {
  const op = deps.kv.atomic();
  deps.jobs.enqueue(op, {
    type: "score_batch",
    form_id: form.id,
    workspace_id: form.workspace_id,
    mode: "live",
    ids,
  });
  assert.ok((await op.commit()).ok);
}

for (const [mode, make] of Object.entries(MODES)) {
  Deno.test(`score job (${mode}) - one job per group commit scores every submission`, async () => {
    const akismet = fakeAkismet();
    const env = await testEnv({ JOBS: mode, ...akismetEnv(akismet) }, { jobs: (kv) => make(kv) });
    const seen = startJobs(env);
    try {
      const ws = await makeWorkspace(env.deps, "pro");
      const form = await makeForm(env.deps, ws);
      const key = await makeKey(env.deps, ws, { scopes: ["read"] });
      // Concurrent posts, so the writer groups them; some from one address in a burst.
      const ids = await Promise.all(Array.from({ length: 40 }, async (_, i) => {
        const res = await postJson(
          env,
          `/api/v1/submit/p/${form.id}`,
          contactData(i),
          { "user-agent": "Mozilla/5.0" },
          i < 12 ? "198.51.100.9" : `203.0.113.${i}`,
        );
        assert.equal(res.status, 201);
        return (await res.json()).submission_id as string;
      }));
      const took = await within(10_000, () => allScored(env.deps.kv, form.id, 40));
      assert.notEqual(took, null, "every submission got its final verdict");
      await assertCountersExact(env.deps.kv, form.id, "live");
      const commits = env.deps.writer.stats.commits;
      assert.ok(commits < 40, `${commits} group commits for 40 posts`);
      assert.equal(seen.scoreJobs.length, commits, "one scoring job per group commit");
      const named = seen.scoreJobs.flatMap((j) => j.type === "score_batch" ? j.ids : []);
      assert.deepEqual(named.sort(), [...ids].sort());
      // The burst from one address is flagged, and its verdict keeps the reasons.
      const records = await recordsOf(env.deps.kv, form.id, "live");
      const burst = records.filter((s) => s.spam?.reasons.some((r) => r.startsWith("burst")));
      assert.ok(burst.length > 0, "burst reasons kept");
      // The API tells a reader the status is final.
      const res = await env.request(`/api/v1/server/forms/${form.id}/submissions/${ids[0]}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(res.status, 200);
      const { submission } = await res.json();
      assert.equal(typeof submission.metadata.scored_at, "string");
      assert.equal(
        akismet.calls.filter((c) => c.path === "/1.1/comment-check").length,
        40,
        "Akismet asked once about each",
      );
    } finally {
      await env.deps.jobs.stop();
      env.close();
      await akismet.server.shutdown();
    }
  });

  Deno.test(`score job (${mode}) - the verdict moves status, index and counters`, async () => {
    const env = await testEnv({ JOBS: mode }, { jobs: (kv) => make(kv) });
    startJobs(env);
    try {
      const ws = await makeWorkspace(env.deps, "pro");
      const form = await makeForm(env.deps, ws);
      // First statuses the final verdict overturns (clean signals: it says completed).
      const ids = await seedSubmissions(env.deps, form, 12, {
        status: (i) => (i % 3 === 0 ? "spam" : i % 3 === 1 ? "suspicious" : "completed"),
      });
      await assertCountersExact(env.deps.kv, form.id, "live");
      const stored = await env.deps.kv.getMany(
        ids.slice(0, 10).map((id) => keys.submission(form.id, id)),
      );
      await enqueueScore(env.deps, form, ids);
      assert.notEqual(await within(10_000, () => allScored(env.deps.kv, form.id, 12)), null);
      // The verdict went to each submission's verdict key; the records were not written again.
      const kept = await env.deps.kv.getMany(stored.map((e) => e.key));
      assert.deepEqual(kept.map((e) => e.versionstamp), stored.map((e) => e.versionstamp));
      assert.ok(kept.every((e) => !(e.value as Submission).scored_at));
      const verdict = await env.deps.kv.get<StoredVerdict>(keys.submissionVerdict(form.id, ids[0]));
      assert.equal(verdict.value?.status, "completed");
      assert.equal(typeof verdict.value?.scored_at, "string");
      const records = await recordsOf(env.deps.kv, form.id, "live");
      assert.deepEqual(records.map((s) => s.status), Array(12).fill("completed"));
      // Seeded records carry no user agent: a small score, with its reason, below flagging.
      for (const s of records) {
        const { content, ...spam } = s.spam ?? {};
        assert.deepEqual(spam, { score: 10, reasons: ["no_user_agent"], scored_at: s.scored_at });
        // The content model read the text too (a plain name and address: no lean either way).
        assert.ok(content && content.p > 0.3 && content.p < 0.75, JSON.stringify(content));
      }
      await assertCountersExact(env.deps.kv, form.id, "live");

      // Delivered again: nothing changes (same versionstamps, the stamp untouched).
      const before = await env.deps.kv.getMany([
        keys.submissionEdits(form.id, "live"),
        ...ids.slice(0, 4).flatMap((id) => [
          keys.submission(form.id, id),
          keys.submissionVerdict(form.id, id),
        ]),
      ]);
      await dispatch(env.deps, {
        type: "score_batch",
        form_id: form.id,
        workspace_id: form.workspace_id,
        mode: "live",
        ids,
      });
      const after = await env.deps.kv.getMany(before.map((e) => e.key));
      assert.deepEqual(after.map((e) => e.versionstamp), before.map((e) => e.versionstamp));
    } finally {
      await env.deps.jobs.stop();
      env.close();
    }
  });

  Deno.test(`score job (${mode}) - re-labelled and deleted submissions are left alone`, async () => {
    const env = await testEnv({ JOBS: mode }, { jobs: (kv) => make(kv) });
    try {
      const ws = await makeWorkspace(env.deps, "pro");
      const form = await makeForm(env.deps, ws);
      const ids = await seedSubmissions(env.deps, form, 4, { status: () => "suspicious" });
      // Before the job runs, an admin marks one as spam and deletes another.
      await setSubmissionStatus(env.deps, form.id, ids[0], "spam");
      const del = await deleteSubmissions(env.deps, form, "live", [ids[1]]);
      assert.equal(del.deleted, 1);
      startJobs(env);
      await enqueueScore(env.deps, form, ids);
      assert.notEqual(
        await within(10_000, async () => {
          const r = await recordsOf(env.deps.kv, form.id, "live");
          return r.filter((s) => s.scored_at).length === 2;
        }),
        null,
      );
      const byId = new Map(
        (await recordsOf(env.deps.kv, form.id, "live")).map((s) => [s.id, s] as const),
      );
      assert.equal(byId.size, 3, "the deleted one stays deleted");
      const relabelled = byId.get(ids[0])!;
      assert.equal(relabelled.status, "spam");
      assert.equal(relabelled.spam?.manual, true);
      assert.equal(relabelled.scored_at, undefined, "the admin's verdict is kept as it was");
      assert.equal(byId.get(ids[2])!.status, "completed");
      await assertCountersExact(env.deps.kv, form.id, "live");
    } finally {
      await env.deps.jobs.stop();
      env.close();
    }
  });

  Deno.test(`score job (${mode}) - a failing job lands undelivered, first status kept`, async () => {
    const akismet = fakeAkismet();
    const env = await testEnv(
      { JOBS: mode, ...akismetEnv(akismet) },
      { jobs: (kv) => make(kv, [10, 10]) },
    );
    // The handler's KV reads fail every time (the writer's own KV is untouched).
    const failing: Deps = {
      ...env.deps,
      kv: new Proxy(env.deps.kv, {
        get(target, prop) {
          if (prop === "get" || prop === "getMany") {
            return () => Promise.reject(new Error("injected read failure"));
          }
          const v = Reflect.get(target, prop);
          return typeof v === "function" ? v.bind(target) : v;
        },
      }),
    };
    startJobs(env, failing);
    try {
      const ws = await makeWorkspace(env.deps, "pro");
      const form = await makeForm(env.deps, ws);
      const key = await makeKey(env.deps, ws, { scopes: ["read"] });
      const res = await postJson(env, `/api/v1/submit/p/${form.id}`, {
        data: { name: "Bot", email: "b@example.com" },
        // A client's own scored_at is never shown as the server's.
        metadata: { ref: "ad", scored_at: "2020-01-01T00:00:00.000Z" },
        rendered_at: Date.now() - 500,
      }, { "user-agent": "x" });
      assert.equal(res.status, 201);
      const { submission_id: id } = await res.json();
      const parked: unknown[] = [];
      await within(10_000, async () => {
        parked.length = 0;
        for await (const e of env.deps.kv.list({ prefix: keys.undeliveredJobs() })) {
          parked.push(e.value);
        }
        return parked.length > 0;
      });
      assert.deepEqual(parked, [{
        type: "score_batch",
        form_id: form.id,
        workspace_id: ws.id,
        mode: "live",
        ids: [id],
      }]);
      const stored = (await readSubmission(env.deps.kv, form.id, id))!;
      assert.equal(stored.status, "suspicious", "the first, in-commit status");
      assert.equal(stored.scored_at, undefined);
      const list = await env.request(
        `/api/v1/server/forms/${form.id}/submissions?status=suspicious`,
        { headers: { authorization: `Bearer ${key}` } },
      );
      const body = await list.json();
      assert.deepEqual(body.submissions.map((s: { id: string }) => s.id), [id]);
      assert.deepEqual(body.submissions[0].metadata, { ref: "ad" });
      await assertCountersExact(env.deps.kv, form.id, "live");
    } finally {
      await env.deps.jobs.stop();
      env.close();
      await akismet.server.shutdown();
    }
  });
}

Deno.test("score job - an admin's edit between its read and its commit wins", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws);
    const ids = await seedSubmissions(env.deps, form, 3, { status: () => "suspicious" });
    // The admin re-labels one right after the job read the records (the stamp before that).
    let raced = false;
    const racing: Deps = {
      ...env.deps,
      kv: new Proxy(env.deps.kv, {
        get(target, prop) {
          const v = Reflect.get(target, prop);
          if (prop !== "getMany") return typeof v === "function" ? v.bind(target) : v;
          return async (keyList: Deno.KvKey[]) => {
            const out = await target.getMany(keyList);
            if (!raced) {
              raced = true;
              await setSubmissionStatus(env.deps, form.id, ids[1], "spam");
            }
            return out;
          };
        },
      }),
    };
    await dispatch(racing, {
      type: "score_batch",
      form_id: form.id,
      workspace_id: form.workspace_id,
      mode: "live",
      ids,
    });
    assert.ok(raced);
    const byId = new Map(
      (await recordsOf(env.deps.kv, form.id, "live")).map((s) => [s.id, s] as const),
    );
    assert.equal(byId.get(ids[1])!.status, "spam", "the admin's label stands");
    assert.equal(byId.get(ids[1])!.scored_at, undefined);
    assert.equal(byId.get(ids[0])!.status, "completed");
    assert.equal(byId.get(ids[2])!.status, "completed");
    await assertCountersExact(env.deps.kv, form.id, "live");
  } finally {
    env.close();
  }
});
