import assert from "node:assert/strict";
import type { Form } from "@/lib/schemas.ts";
import {
  makeForm,
  makeKey,
  makeWorkspace,
  postJson,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { assertCountersExact } from "@/tests/recount.ts";
import { setSubmissionStatus } from "@/lib/submissions/status.ts";

const FORM = {
  name: "Applications",
  fields: [
    { name: "name", type: "text" },
    { name: "email", type: "email" },
    { name: "message", type: "textarea" },
  ],
} as const;

/** People who submit, oldest first. */
const PEOPLE = [
  { name: "Ada Lovelace", email: "ada.lovelace@example.com", message: "Analytical engines" },
  { name: "Zoë Müller", email: "zoe@müller.example", message: "Crème brûlée recipe" },
  { name: "Grace Hopper", email: "grace@navy.example", message: "Compilers and COBOL" },
  { name: "Alan Turing", email: "alan@example.com", message: "ﬁne machines ２０２６" },
  { name: "Adam Smith", email: "adam.smith@econ.example", message: "lovely markets" },
  { name: "Ada Byron", email: "byron@example.org", message: "Poems, not engines" },
];

async function setup(): Promise<{ env: TestEnv; form: Form; key: string; ids: string[] }> {
  const env = await testEnv({ RATE_LIMITS: JSON.stringify({ submit: 100_000 }) });
  const ws = await makeWorkspace(env.deps, "pro");
  const form = await makeForm(env.deps, ws, FORM as never);
  const key = await makeKey(env.deps, ws, { scopes: ["read", "submit", "admin"] });
  const ids: string[] = [];
  for (const data of PEOPLE) {
    const res = await postJson(env, `/api/v1/submit/p/${form.id}`, { data });
    assert.equal(res.status, 201, await res.clone().text());
    ids.push((await res.json()).submission_id);
  }
  return { env, form, key, ids };
}

async function search(
  env: TestEnv,
  form: Form,
  key: string,
  params: Record<string, string>,
): Promise<{ status: number; ids: string[]; total: number; body: Record<string, unknown> }> {
  const qs = new URLSearchParams(params).toString();
  const res = await env.request(`/api/v1/server/forms/${form.id}/submissions?${qs}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const body = await res.json();
  return {
    status: res.status,
    ids: (body.submissions ?? []).map((s: { id: string }) => s.id),
    total: body.pagination?.total ?? -1,
    body,
  };
}

Deno.test("search - matching rule", async (t) => {
  const { env, form, key, ids } = await setup();
  const [ada, zoe, grace, alan, adam, byron] = ids;
  const found = async (q: string) => {
    const r = await search(env, form, key, { search: q });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.total, r.ids.length, q);
    return r.ids;
  };
  try {
    await t.step("a word's start matches, newest first", async () => {
      assert.deepEqual(await found("lovel"), [adam, ada]);
      assert.deepEqual(await found("LOVELACE"), [ada]);
      assert.deepEqual(await found("ada"), [byron, adam, ada]);
      // Inside a word is not a word's start.
      assert.deepEqual(await found("velace"), []);
    });
    await t.step("every word must match, in any field, in any order", async () => {
      assert.deepEqual(await found("ada engines"), [byron, ada]);
      assert.deepEqual(await found("engines ada analytical"), [ada]);
      assert.deepEqual(await found("ada cobol"), []);
    });
    await t.step("accents, case and Unicode compatibility forms are folded", async () => {
      assert.deepEqual(await found("zoe muller"), [zoe]);
      assert.deepEqual(await found("ZOË MÜLLER"), [zoe]);
      assert.deepEqual(await found("creme brulee"), [zoe]);
      // The ligature ﬁ and full-width digits are their plain letters under NFKC.
      assert.deepEqual(await found("fine 2026"), [alan]);
      assert.deepEqual(await found("ﬁne"), [alan]);
    });
    await t.step(
      "an email address matches whole, by its start, its domain and its words",
      async () => {
        assert.deepEqual(await found("ada.lovelace@example.com"), [ada]);
        assert.deepEqual(await found("ADA.LOVELACE@"), [ada]);
        assert.deepEqual(await found("<alan@example.com>"), [alan]);
        assert.deepEqual(await found("@example.com"), [alan, ada]);
        assert.deepEqual(await found("@example"), [byron, alan, ada]);
        assert.deepEqual(await found("navy"), [grace]);
        assert.deepEqual(await found("zoe@müller.example"), [zoe]);
        // A whole address is not matched by another one's start.
        assert.deepEqual(await found("lovelace@example.com"), []);
      },
    );
    await t.step("a submission id matches, whole or by its start", async () => {
      assert.deepEqual(await found(grace), [grace]);
      assert.deepEqual(await found(grace.toUpperCase()), [grace]);
      assert.deepEqual(await found(grace.slice(0, 24)).then((r) => r.includes(grace)), true);
    });
    await t.step("a query without letters or digits matches nothing", async () => {
      assert.deepEqual(await found("-- !!"), []);
    });
    await t.step("limits are a 400 in the documented shape", async () => {
      const words = await search(env, form, key, { search: "a b c d e f g h i" });
      assert.equal(words.status, 400);
      assert.equal((words.body as { code: string }).code, "bad_request");
      assert.match(JSON.stringify(words.body), /at most 8 words/);
      const long = await search(env, form, key, { search: "x".repeat(65) });
      assert.equal(long.status, 400);
      assert.match(JSON.stringify(long.body), /at most 64 characters/);
      const huge = await search(env, form, key, { search: "ab ".repeat(70) });
      assert.equal(huge.status, 400);
    });
  } finally {
    env.close();
  }
});

Deno.test("search - exact totals with status, range and pages, kept through changes", async (t) => {
  const { env, form, key, ids } = await setup();
  const [ada, , , , adam, byron] = ids;
  try {
    await t.step("a prefix matching several words of one submission counts it once", async () => {
      // Ada Lovelace holds "ada" (twice), "analytical", "ada.lovelace@…": one match. Zoë
      // Müller holds no word starting with "a".
      const r = await search(env, form, key, { search: "a" });
      assert.equal(r.total, 5);
      assert.deepEqual(r.ids, [...ids].reverse().filter((id) => id !== ids[1]));
      const an = await search(env, form, key, { search: "an" });
      // Grace Hopper ("and"), Ada Lovelace ("analytical"); not Alan ("alan").
      assert.deepEqual(an.ids, [ids[2], ada]);
    });
    await t.step("pages", async () => {
      const p1 = await search(env, form, key, { search: "e", limit: "4" });
      const p2 = await search(env, form, key, { search: "e", limit: "4", page: "2" });
      assert.equal(p1.total, 6);
      assert.deepEqual([...p1.ids, ...p2.ids], [...ids].reverse());
      assert.equal((p2.body.pagination as { has_more: boolean }).has_more, false);
    });
    await t.step("a status change moves the match between statuses", async () => {
      await setSubmissionStatus(env.deps, form.id, adam, "spam");
      const spam = await search(env, form, key, { search: "lovel", status: "spam" });
      assert.deepEqual(spam.ids, [adam]);
      assert.equal(spam.total, 1);
      const done = await search(env, form, key, { search: "lovel", status: "completed" });
      assert.deepEqual(done.ids, [ada]);
      assert.equal(done.total, 1);
      const all = await search(env, form, key, { search: "lovel", range: "7d" });
      assert.deepEqual(all.ids, [adam, ada]);
      await assertCountersExact(env.deps.kv, form.id, "live");
    });
    await t.step("a delete takes the submission out of every match", async () => {
      const res = await env.request(`/api/v1/server/forms/${form.id}/submissions`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ ids: [byron] }),
      });
      assert.equal(res.status, 200);
      const r = await search(env, form, key, { search: "ada" });
      assert.deepEqual(r.ids, [adam, ada]);
      assert.equal(r.total, 2);
      assert.equal((await search(env, form, key, { search: "a" })).total, 4);
      await assertCountersExact(env.deps.kv, form.id, "live");
    });
  } finally {
    env.close();
  }
});
