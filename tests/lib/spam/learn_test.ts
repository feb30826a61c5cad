/**
 * Learning from admins: labels move a workspace's own token statistics through the
 * `learn_label` job; after 20 spam labels of a new kind the next similar message is
 * flagged; another workspace's verdicts do not change; un-doing the labels un-learns them.
 * @module
 */
import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import { dispatch } from "@/lib/jobs/mod.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Form, Submission, Workspace } from "@/lib/schemas.ts";
import { applyLabel, emptyStats, MAX_STATS_TOKENS, type SpamStats } from "@/lib/spam/learn.ts";
import { setSubmissionStatus } from "@/lib/submissions/status.ts";
import { deleteSubmissions } from "@/lib/submissions/delete.ts";
import {
  CONTACT_FORM,
  makeForm,
  makeWorkspace,
  postJson,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { within } from "@/tests/processes.ts";
import { assertCountersExact } from "@/tests/recount.ts";

const FORM = {
  ...CONTACT_FORM,
  fields: [
    ...(CONTACT_FORM.fields ?? []),
    { id: "fld_msg", name: "message", type: "textarea" as const, maxLength: 5000 },
  ],
};

/** A message of a kind the global model has never read (made-up product words). */
function newKind(i: number): string {
  const extra = ["on monday", "this week", "right now", "before friday"][i % 4];
  return `Hello, we put Zorvexa boards with the Quillomatic ` +
    `Trivexon bundle ${extra}. Grobnik placements, Zorvexa boards, Trivexon glow. ` +
    `Ask for the Quillomatic plan number ${i}. The Velquora crew handles Drimbly ` +
    `syndication, Ostrava feeds and Plonkett mentions across every Zorvexa board, so the ` +
    `Grobnik score climbs while the Trivexon dashboard tracks each Velquora placement.`;
}

async function submit(env: TestEnv, form: Form, i: number, text: string): Promise<string> {
  const res = await postJson(
    env,
    `/api/v1/submit/p/${form.id}`,
    { data: { name: `Sender ${i}`, email: `s${i}@example.net`, message: text } },
    { "user-agent": "Mozilla/5.0" },
    `198.18.${Math.floor(i / 200)}.${i % 200 + 1}`,
  );
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()).submission_id as string;
}

async function verdictOf(env: TestEnv, form: Form, id: string): Promise<Submission> {
  let sub: Submission | null = null;
  const took = await within(10_000, async () => {
    sub = await readSubmission(env.deps.kv, form.id, id);
    return !!sub?.scored_at;
  });
  assert.notEqual(took, null, "scored");
  return sub!;
}

async function stats(env: TestEnv, ws: Workspace): Promise<SpamStats | null> {
  return (await env.deps.kv.get<SpamStats>(keys.spamStats(ws.id))).value;
}

/** Waits until the workspace's statistics hold `spam` and `ham` labelled messages. */
async function learned(env: TestEnv, ws: Workspace, spam: number, ham: number): Promise<void> {
  const took = await within(10_000, async () => {
    const s = await stats(env, ws);
    return (s?.spam ?? 0) === spam && (s?.ham ?? 0) === ham;
  });
  assert.notEqual(took, null, `statistics reach ${spam} spam / ${ham} ham`);
}

const flagged = (s: Submission) => s.status !== "completed";

Deno.test("learning - 20 spam labels flag the next similar message, only in that workspace; undo un-learns", async () => {
  const env = await testEnv();
  env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const other = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws, FORM);
    const otherForm = await makeForm(env.deps, other, FORM);

    // Before any label, the new kind reads as ordinary mail.
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await submit(env, form, i, newKind(i)));
    for (const id of ids) assert.equal(flagged(await verdictOf(env, form, id)), false);
    const before = await verdictOf(env, form, await submit(env, form, 100, newKind(100)));
    assert.equal(before.status, "completed");

    for (const id of ids) await setSubmissionStatus(env.deps, form.id, id, "spam");
    await learned(env, ws, 20, 0);
    await assertCountersExact(env.deps.kv, form.id, "live");
    const s = (await stats(env, ws))!;
    assert.deepEqual(s.tokens["zorvexa"], [0, 20]);

    const next = await verdictOf(env, form, await submit(env, form, 101, newKind(101)));
    assert.ok(flagged(next), `flagged after learning: ${JSON.stringify(next.spam)}`);
    assert.ok(next.spam?.content && next.spam.content.p >= 0.9);
    // The words that drove it are the new kind's own (never read by the global model).
    const invented = newKind(101).toLowerCase();
    assert.ok(
      next.spam.content.tokens.some((t) => /^[a-z]+$/.test(t.token) && invented.includes(t.token)),
    );

    // Another workspace's verdict on the same message is unchanged.
    const elsewhere = await verdictOf(
      env,
      otherForm,
      await submit(env, otherForm, 102, newKind(102)),
    );
    assert.equal(elsewhere.status, "completed");
    assert.equal(await stats(env, other), null);

    // A second delivery of a label job changes nothing.
    const op = env.deps.kv.atomic();
    env.deps.jobs.enqueue(op, {
      type: "learn_label",
      workspace_id: ws.id,
      form_id: form.id,
      submission_id: ids[0],
      label: "spam",
      previous: null,
    });
    assert.ok((await op.commit()).ok);
    const settled = await within(2_000, async () => {
      const s2 = await stats(env, ws);
      return s2?.spam !== 20;
    });
    assert.equal(settled, null, "a repeated label is not counted twice");

    // Un-doing the labels un-learns them: no spam counts left, the next one is ordinary.
    for (const id of ids) await setSubmissionStatus(env.deps, form.id, id, "completed");
    await learned(env, ws, 0, 20);
    assert.deepEqual((await stats(env, ws))!.tokens["zorvexa"], [20, 0]);
    await assertCountersExact(env.deps.kv, form.id, "live");
    const after = await verdictOf(env, form, await submit(env, form, 103, newKind(103)));
    assert.equal(after.status, "completed");
  } finally {
    await env.deps.jobs.stop();
    env.close();
  }
});

Deno.test("learning - statistics stay bounded and subtracting restores them", () => {
  let s = emptyStats();
  const docs = Array.from({ length: 30 }, (_, i) => ({
    label: "spam" as const,
    tokens: Array.from({ length: 200 }, (_, j) => `t${i}_${j}`),
  }));
  for (const d of docs) s = applyLabel(s, d, 1);
  assert.equal(Object.keys(s.tokens).length, MAX_STATS_TOKENS);
  assert.ok(JSON.stringify(s).length < 60_000, "fits a KV value");
  let t = applyLabel(emptyStats(), { label: "ham", tokens: ["a", "b"] }, 1);
  t = applyLabel(t, { label: "spam", tokens: ["b"] }, 1);
  t = applyLabel(t, { label: "spam", tokens: ["b"] }, -1);
  assert.deepEqual({ ...t, tokens: { ...t.tokens } }, {
    ham: 1,
    spam: 0,
    tokens: { a: [1, 0], b: [1, 0] },
  });
});

Deno.test("learning - words that name Object.prototype's members are ordinary words", () => {
  const words = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];
  let t = applyLabel(emptyStats(), { label: "spam", tokens: words }, 1);
  t = applyLabel(t, { label: "spam", tokens: words }, 1);
  t = applyLabel(t, { label: "ham", tokens: ["constructor"] }, 1);
  assert.deepEqual(Object.keys(t.tokens).sort(), [...words].sort());
  assert.deepEqual(t.tokens["constructor"], [1, 2]);
  assert.deepEqual(t.tokens["__proto__"], [0, 2]);
  // As KV hands the record back (a structured clone has Object.prototype again).
  const read = structuredClone(t);
  assert.deepEqual(applyLabel(read, { label: "spam", tokens: words }, -1).tokens["toString"], [
    0,
    1,
  ]);
});

Deno.test("learning - an admin's label of a message saying `constructor` is learned", async () => {
  const env = await testEnv();
  env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws, FORM);
    const text = "Please call the constructor about the __proto__ toString valueOf fence.";
    const id = await submit(env, form, 1, text);
    await verdictOf(env, form, id);
    await setSubmissionStatus(env.deps, form.id, id, "spam");
    await learned(env, ws, 1, 0);
    const s = (await stats(env, ws))!;
    assert.deepEqual(s.tokens["constructor"], [0, 1]);
    assert.deepEqual(s.tokens["valueof"], [0, 1]);
  } finally {
    await env.deps.jobs.stop();
    env.close();
  }
});

Deno.test("learning - deleting a labelled submission drops its own copy of the words it taught", async () => {
  const env = await testEnv();
  env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws, FORM);
    const id = await submit(env, form, 1, newKind(1));
    await verdictOf(env, form, id);
    await setSubmissionStatus(env.deps, form.id, id, "spam");
    await learned(env, ws, 1, 0);
    const copy = keys.spamLearned(ws.id, id);
    assert.ok((await env.deps.kv.get(copy)).value, "the label's tokens are kept per submission");
    const r = await deleteSubmissions(env.deps, form, "live", [id]);
    assert.equal(r.deleted, 1);
    assert.equal((await env.deps.kv.get(copy)).value, null);
    assert.equal((await stats(env, ws))?.spam, 1, "the workspace's counts keep what it learned");
  } finally {
    await env.deps.jobs.stop();
    env.close();
  }
});
