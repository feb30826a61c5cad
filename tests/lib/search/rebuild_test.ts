import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { packGroup, unpackGroup } from "@/lib/search/postings.ts";
import { seedSubmissions } from "@/bench/seed.ts";
import { runCli } from "@/cli.ts";
import type { RebuildReport } from "@/lib/search/rebuild.ts";
import { listSubmissions, submissionListQuerySchema } from "@/lib/submissions/query.ts";
import { contactData, makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { assertCountersExact, assertSearchIndexExact } from "@/tests/recount.ts";

const fields = (i: number) => ({
  name: `Person ${i}`,
  email: `person${i}@example.com`,
  topic: i % 3 ? "sales" : "support",
});

Deno.test("search rebuild - repairs missing, stray and wrong entries and counters", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws);
    await seedSubmissions(env.deps, form, 300, { fields });
    await seedSubmissions(env.deps, form, 20, { fields, mode: "test" });
    const kv = env.deps.kv;
    // Damage: a posting lost, a stray for a missing word and a missing submission, a wrong
    // status in a posting, a counter off by some.
    const groupOf = async (token: string, n: number) => {
      for await (const e of kv.list({ prefix: [...keys.words(form.id, "live"), token] })) {
        const postings = unpackGroup(e.key[4] as number, e.value);
        if (postings.some((p) => p.n === n)) return { key: e.key, postings };
      }
      throw new Error(`no group of ${token} holds ${n}`);
    };
    const support = await groupOf("support", 4);
    const sales = await groupOf("sales", 2);
    const stray = { day: 20_000, status: "completed" as const, shared: 0 };
    const op = kv.atomic()
      .set(
        support.key,
        packGroup(support.key[4] as number, support.postings.filter((p) => p.n !== 4)),
      )
      .set(keys.word(form.id, "live", "zebra", 10), packGroup(10, [{ n: 10, ...stray }]))
      .set(keys.word(form.id, "live", "person", 9_999), packGroup(9_999, [{ n: 9_999, ...stray }]))
      .set(
        sales.key,
        packGroup(
          sales.key[4] as number,
          sales.postings.map((p) => p.n === 2 ? { ...p, status: "spam" as const } : p),
        ),
      )
      .set(keys.wordCount(form.id, "live", "sales", 0), new Deno.KvU64(7n))
      .set(keys.wordCount(form.id, "live", "ghost", 0), new Deno.KvU64(2n));
    assert.ok((await op.commit()).ok);
    await assert.rejects(() => assertSearchIndexExact(kv, form.id, "live"));

    const out = await runCli(env.deps, ["search", "rebuild", "--form", form.id]) as Record<
      string,
      RebuildReport
    >;
    assert.equal(out.live.submissions, 300);
    assert.equal(out.test.submissions, 20);
    assert.equal(out.live.entries_removed, 2);
    assert.equal(out.live.entries_set, 2, JSON.stringify(out)); // support 4 and sales 2
    assert.equal(out.live.counters_fixed, 2, JSON.stringify(out)); // "sales" and "ghost"
    assert.equal(out.test.entries_removed, 0);
    assert.equal(out.test.counters_fixed, 0);
    await assertCountersExact(kv, form.id, "live");
    await assertCountersExact(kv, form.id, "test");
    const again = await runCli(env.deps, ["search", "rebuild", "--form", form.id]) as Record<
      string,
      { entries_set: number; entries_removed: number; counters_fixed: number }
    >;
    assert.deepEqual(
      [again.live.entries_set, again.live.entries_removed, again.live.counters_fixed],
      [0, 0, 0],
    );
    const q = submissionListQuerySchema.parse({ search: "support" });
    const r = await listSubmissions(env.deps, form, "live", q);
    assert.equal(r.pagination.total, 100);
  } finally {
    env.close();
  }
});

Deno.test("search rebuild - exact while submissions keep arriving", async () => {
  const env = await testEnv({ RATE_LIMITS: JSON.stringify({ submit: 100_000 }) });
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws);
    await seedSubmissions(env.deps, form, 400, { fields });
    const submits = (async () => {
      for (let i = 0; i < 60; i++) {
        const res = await env.request(`/api/v1/submit/p/${form.id}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(contactData(1000 + i)),
        });
        assert.equal(res.status, 201);
      }
    })();
    await Promise.all([runCli(env.deps, ["search", "rebuild", "--form", form.id]), submits]);
    await assertCountersExact(env.deps.kv, form.id, "live");
    const q = submissionListQuerySchema.parse({ search: "person10" });
    // person10 and person100..109 seeded, person1000..1059 submitted.
    assert.equal((await listSubmissions(env.deps, form, "live", q)).pagination.total, 71);
  } finally {
    env.close();
  }
});
