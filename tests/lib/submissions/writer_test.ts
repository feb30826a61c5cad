import assert from "node:assert/strict";
import { AppError } from "@/lib/errors.ts";
import { markRemote } from "@/lib/kv/batcher.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Form, Workspace } from "@/lib/schemas.ts";
import { utcMonth } from "@/lib/kv/kv.ts";
import type { SubmissionDraft } from "@/lib/submissions/types.ts";
import { RETRY_WINDOW_MS } from "@/lib/submissions/writer.ts";
import { buildDeps } from "@/lib/runtime.ts";
import { createApp } from "@/routes/mod.ts";
import {
  contactData,
  makeForm,
  makeKey,
  makeWorkspace,
  MESSAGE_FORM,
  recount,
  testEnv,
} from "@/tests/helpers.ts";
import { assertCountersExact } from "@/tests/recount.ts";

/** A live submission of contact data number `i`, with no limits, files or other parts. */
function liveDraft(form: Form, workspace: Workspace, i: number): SubmissionDraft {
  return {
    form,
    workspace,
    mode: "live",
    fields: contactData(i).data,
    metadata: {},
    files: [],
    signals: {},
    limits: [],
    size: 1024,
  };
}

Deno.test("submission writer - a value KV refuses fails only its own submission", async () => {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps);
  const form = await makeForm(env.deps, ws);
  const draft = (i: number, oversized = false): SubmissionDraft => ({
    ...liveDraft(form, ws, i),
    // A part writing a value over KV's 64 KiB makes the whole batch's commit throw.
    parts: oversized
      ? [{ checks: 0, apply: (op) => Promise.resolve(void op.set(["x", i], "x".repeat(70_000))) }]
      : [],
  });
  const results = await Promise.allSettled(
    [0, 1, 2, 3, 4].map((i) => env.deps.writer.write(draft(i, i === 2))),
  );
  const refused = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
  assert.equal(refused.length, 1);
  assert.ok(refused[0].reason instanceof AppError);
  assert.equal(refused[0].reason.status, 413);
  assert.equal(results.filter((r) => r.status === "fulfilled").length, 4);
  assert.equal(await recount(env.deps, form.id), 4);
  const numbers = results.flatMap((r) =>
    r.status === "fulfilled" ? [r.value.body.submission_number] : []
  );
  assert.deepEqual(numbers.sort(), [1, 2, 3, 4]);
  await assertCountersExact(env.deps.kv, form.id, "live");
  env.close();
});

/**
 * Commit A takes submission 0 while `early` gather; `late` arrive on a timer that fires after
 * A ends. Returns the commits made.
 */
async function gathering(early: number[], late: number[]): Promise<number> {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps);
  const form = await makeForm(env.deps, ws);
  const { writer } = env.deps;
  const write = (i: number) => writer.write(liveDraft(form, ws, i));
  const lateDone = new Promise<unknown>((resolve) =>
    write(0).then(() => setTimeout(() => resolve(Promise.all(late.map(write))), 0))
  );
  await Promise.all(early.map(write));
  await lateDone;
  assert.equal(writer.stats.submissions, 1 + early.length + late.length);
  await assertCountersExact(env.deps.kv, form.id, "live");
  env.close();
  return writer.stats.commits;
}

Deno.test("submission writer - what gathered during a commit goes in the next one at once", async () => {
  // 1-5 gather during A and go in B as A ends; 6-11 arrive after that, so they take a commit
  // or two of their own (as B is still in flight or not): B never waits on a timer for them.
  assert.ok(await gathering([1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]) >= 3);
  assert.equal(await gathering([1, 2, 3, 4, 5, 6], []), 2);
});

Deno.test("submission writer - browser submits from many addresses share a commit as the store's checks allow", async () => {
  // A local store allows 100 checks an operation; KV Connect and Deploy allow 10.
  for (const [remote, commits, most] of [[false, 2, 66], [true, 9, 10]] as const) {
    const env = await testEnv();
    if (remote) markRemote(env.deps.kv);
    // No monthly cap, so no check is reserved for the quota counter.
    const ws = await makeWorkspace(env.deps, "business");
    const form = await makeForm(env.deps, ws);
    let biggest = 0;
    const atomic = env.deps.kv.atomic.bind(env.deps.kv);
    env.deps.kv.atomic = () => {
      const op = atomic();
      const check = op.check.bind(op);
      let checks = 0;
      op.check = (...c) => (biggest = Math.max(biggest, checks += c.length), check(...c));
      return op;
    };
    const { writer } = env.deps;
    // Each spends its own address's budget: one check each, beside the sequence and feed head.
    // One word each (beside the id), so KV's mutations never bound a batch before its checks.
    const write = (i: number) =>
      writer.write({
        ...liveDraft(form, ws, i),
        fields: { name: "Ada" },
        limits: [{ route: "submit", identity: `ip:198.51.100.${i}`, perMinute: 10 }],
      });
    // The first commits alone; the 64 gathered meanwhile share one commit (64 a batch at
    // most), or take eight of eight.
    const first = write(0);
    await Promise.all([first, ...Array.from({ length: 64 }, (_, i) => write(i + 1))]);
    assert.equal(writer.stats.commits, commits, JSON.stringify(writer.stats));
    assert.equal(biggest, most);
    assert.equal(writer.stats.submissions, 65);
    env.close();
  }
});

Deno.test("submission writer - long texts' search entries split batches within KV's limits", async () => {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps, "business");
  const form = await makeForm(env.deps, ws, MESSAGE_FORM);
  // 300 different words each (250 are indexed: 500 mutations with their counters), so
  // two of them already fill most of one commit's 1,000 mutations.
  const text = (i: number) => Array.from({ length: 300 }, (_, w) => `w${i}x${w}`).join(" ");
  await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      env.deps.writer.write({
        ...liveDraft(form, ws, i),
        fields: { name: `Person ${i}`, email: `p${i}@example.com`, message: text(i) },
      })),
  );
  assert.equal(await recount(env.deps, form.id), 12);
  assert.ok(env.deps.writer.stats.commits >= 6, JSON.stringify(env.deps.writer.stats));
  await assertCountersExact(env.deps.kv, form.id, "live");
  env.close();
});

Deno.test("submission writer - two writers on one KV keep Idempotency-Keys exactly once", async () => {
  // Two deps (two writers, as in two processes) over one KV, under load so each writer's
  // queue keeps its cached sequence and skips re-reading records it knows are absent.
  const env = await testEnv();
  const other = await buildDeps(env.deps.kv, env.deps.config);
  const apps = [env.app, createApp(other)];
  const ws = await makeWorkspace(env.deps, "business");
  const form = await makeForm(env.deps, ws);
  const key = await makeKey(env.deps, ws);
  // 41 keys over two writers: each key goes to both. One earlier submission gives the form
  // a sequence, so every request's read sees a versionstamp the writers' chains hold.
  const K = 41;
  const send = (i: number) =>
    apps[i % 2].request(`http://localhost/api/v1/submit/p/${form.id}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${key}`,
        "idempotency-key": `k${i % K}`,
      },
      body: JSON.stringify(contactData(i % K)),
    });
  assert.equal(
    (await env.request(`/api/v1/submit/p/${form.id}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify(contactData(-1)),
    })).status,
    201,
  );
  const responses = await Promise.all(Array.from({ length: 400 }, (_, i) => send(i)));
  const bodies = await Promise.all(responses.map((r) => r.json()));
  assert.deepEqual([...new Set(responses.map((r) => r.status))], [201]);
  const idByKey = new Map<number, string>();
  bodies.forEach((b, i) => {
    const seen = idByKey.get(i % K) ?? b.submission_id;
    assert.equal(b.submission_id, seen, `one submission per key (k${i % K})`);
    idByKey.set(i % K, seen);
  });
  assert.equal(new Set(idByKey.values()).size, K);
  assert.equal(await recount(env.deps, form.id), K + 1);
  const numbers = [...new Set(bodies.map((b) => b.submission_number))].sort((a, b) => a - b);
  assert.deepEqual(numbers, Array.from({ length: K }, (_, i) => i + 2));
  await assertCountersExact(env.deps.kv, form.id, "live");
  other.storage.close?.();
  env.close();
});

Deno.test("submission writer - two writers sharing a workspace limit keep their forms' sequences", async () => {
  // One key on two forms, each form served by its own writer (as by two processes): every
  // commit moves the shared rate-limit state under the other writer's cached copy.
  // 1,000 a minute: each spend moves the state 60 ms ahead, far faster than time passes.
  const env = await testEnv({ RATE_LIMITS: JSON.stringify({ workspace: 1000 }) });
  const other = await buildDeps(env.deps.kv, env.deps.config);
  const apps = [env.app, createApp(other)];
  const ws = await makeWorkspace(env.deps, "business");
  const forms = [await makeForm(env.deps, ws), await makeForm(env.deps, ws)];
  const key = await makeKey(env.deps, ws);
  const send = (w: number, i: number) =>
    apps[w].request(`http://localhost/api/v1/submit/p/${forms[w].id}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify(contactData(i)),
    });
  const writers = [env.deps.writer, other.writer];
  const started = Date.now();
  for (let round = 0; round < 5; round++) {
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => send(i % 2, round * 40 + i)),
    );
    assert.deepEqual([...new Set(responses.map((r) => r.status))], [201]);
    await Promise.all(responses.map((r) => r.body?.cancel()));
  }
  for (const [w, form] of forms.entries()) {
    assert.equal(await recount(env.deps, form.id), 100);
    await assertCountersExact(env.deps.kv, form.id, "live");
    // A conflict on the shared limit re-reads that state, and the retry commits.
    assert.ok(
      writers[w].stats.conflicts <= writers[w].stats.commits,
      JSON.stringify(writers[w].stats),
    );
  }
  // Every one of the 200 spends is in the shared state: none was lost to the other writer.
  const spent = await env.deps.kv.get<{ tat: number }>(keys.rateLimit("submit", `ws:${ws.id}`));
  assert.ok(spent.value!.tat >= started + 200 * 60, `${spent.value!.tat - started} ms ahead`);
  other.storage.close?.();
  env.close();
});

Deno.test("submission writer - two writers spending a workspace's last quota units never overshoot it", async () => {
  // Two forms of one Starter workspace (10,000 a month), each served by its own writer (as
  // by two instances), with 5 submissions left: 40 arrive at once, 20 at each writer.
  const env = await testEnv();
  const other = await buildDeps(env.deps.kv, env.deps.config);
  const ws = await makeWorkspace(env.deps, "starter");
  const forms = [await makeForm(env.deps, ws), await makeForm(env.deps, ws)];
  const counter = keys.monthlySubmissions(ws.id, utcMonth(Date.now()));
  await env.deps.kv.set(counter, new Deno.KvU64(10_000n - 5n));
  const writers = [env.deps.writer, other.writer];
  const results = await Promise.allSettled(
    Array.from({ length: 40 }, (_, i) => writers[i % 2].write(liveDraft(forms[i % 2], ws, i))),
  );
  const refusals = results.flatMap((r) => r.status === "rejected" ? [r.reason] : []);
  assert.equal(results.length - refusals.length, 5);
  assert.ok(refusals.every((e) => e instanceof AppError && e.code === "quota_exceeded"));
  assert.equal((await env.deps.kv.get<Deno.KvU64>(counter)).value!.value, 10_000n);
  assert.equal(
    (await recount(env.deps, forms[0].id)) + (await recount(env.deps, forms[1].id)),
    5,
  );
  other.storage.close?.();
  env.close();
});

Deno.test("submission writer - a batch another instance keeps beating retries for the window, then 503", async () => {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps);
  const form = await makeForm(env.deps, ws);
  // Another instance moves the form's sequence just before each of our commits, forever.
  const { kv } = env.deps;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = async () => {
      await kv.set(keys.submissionSeq(form.id, "live"), Math.floor(Math.random() * 1e9));
      return await commit();
    };
    return op;
  };
  const started = performance.now();
  await assert.rejects(
    env.deps.writer.write(liveDraft(form, ws, 0)),
    (err) => err instanceof AppError && err.status === 503,
  );
  const elapsed = performance.now() - started;
  // Bounded by time, not by a count a fast rival exhausts in well under a second.
  assert.ok(elapsed >= RETRY_WINDOW_MS && elapsed < RETRY_WINDOW_MS + 2_000, `${elapsed} ms`);
  assert.ok(env.deps.writer.stats.conflicts > 100, JSON.stringify(env.deps.writer.stats));
  assert.equal(await recount(env.deps, form.id), 0);
  env.close();
});

Deno.test("submission writer - a commit that lost to another instance leaves no scoring marks behind", async () => {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps);
  const form = await makeForm(env.deps, ws);
  const { kv, writer } = env.deps;
  await writer.write(liveDraft(form, ws, 0));
  // Another instance touches the form's sequence (same value, new versionstamp) just before
  // our next commit, once: that commit fails its check and is built again.
  const seqKey = keys.submissionSeq(form.id, "live");
  const atomic = kv.atomic.bind(kv);
  let beaten = false;
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = async () => {
      if (!beaten) {
        beaten = true;
        await kv.set(seqKey, (await kv.get<number>(seqKey)).value);
      }
      return await commit();
    };
    return op;
  };
  const { body } = await writer.write(liveDraft(form, ws, 1));
  assert.equal(writer.stats.conflicts, 1);
  const stored = await kv.get<{ signals: { duplicate?: boolean } }>(
    keys.submission(form.id, body.submission_id),
  );
  // Scored against the form's real submissions only, not against its own failed attempt.
  assert.equal(stored.value?.signals.duplicate ?? false, false);
  assert.equal(body.submission_number, 2);
  env.close();
});
