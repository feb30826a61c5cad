import assert from "node:assert/strict";
import { seedSubmissions } from "@/bench/seed.ts";
import { keys } from "@/lib/kv/keys.ts";
import { GROUP_BLOCK } from "@/lib/search/entries.ts";
import { packGroup, type Posting, unpackGroup } from "@/lib/search/postings.ts";
import { deleteSubmissions } from "@/lib/submissions/delete.ts";
import { setSubmissionStatus } from "@/lib/submissions/status.ts";
import { makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { assertSearchIndexExact } from "@/tests/recount.ts";

Deno.test("search postings - a group's value packs and unpacks every field", () => {
  const postings: Posting[] = [
    { n: 1_000_000, day: 20_425, status: "completed", shared: 0 },
    { n: 1_000_001, day: 20_425, status: "spam", shared: 65 },
    { n: 1_000_900, day: 0, status: "suspicious", shared: 127 },
  ];
  const packed = packGroup(1_000_000, postings);
  assert.ok(packed.length <= postings.length * 7, `${packed.length} bytes`);
  assert.deepEqual(unpackGroup(1_000_000, packed), postings);
  assert.deepEqual(unpackGroup(5, null), []);
});

Deno.test("search postings - one group per token per commit, rewritten on delete and status", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws);
    const kv = env.deps.kv;
    // A commit crossing a block's end: "sales" takes one group each side of it.
    await seedSubmissions(env.deps, form, GROUP_BLOCK - 11, {
      fields: (i) => ({ note: `filler ${i}` }),
    });
    const ids = await seedSubmissions(env.deps, form, 20, {
      fields: (i) => ({ name: `Person ${i}`, topic: "sales" }),
    });
    const groups = async (token: string) => {
      const out: [number, Posting[]][] = [];
      for await (const e of kv.list({ prefix: [...keys.words(form.id, "live"), token] })) {
        out.push([e.key[4] as number, unpackGroup(e.key[4] as number, e.value)]);
      }
      return out;
    };
    const sales = await groups("sales");
    assert.deepEqual(sales.map(([first, p]) => [first, p.length]), [
      [GROUP_BLOCK - 10, 10],
      [GROUP_BLOCK, 10],
    ]);
    await assertSearchIndexExact(kv, form.id, "live");

    // Deleting the group's first submission keeps its key; a status change rewrites it.
    const first = ids[0];
    assert.equal((await deleteSubmissions(env.deps, form, "live", [first])).deleted, 1);
    await setSubmissionStatus(env.deps, form.id, ids[1], "spam");
    const after = await groups("sales");
    assert.equal(after[0][0], GROUP_BLOCK - 10);
    assert.deepEqual(
      after[0][1].map((p) => [p.n, p.status]).slice(0, 2),
      [[GROUP_BLOCK - 9, "spam"], [GROUP_BLOCK - 8, "completed"]],
    );
    await assertSearchIndexExact(kv, form.id, "live");

    // A group emptied is deleted.
    await deleteSubmissions(env.deps, form, "live", ids.slice(10));
    assert.deepEqual((await groups("sales")).map(([f]) => f), [GROUP_BLOCK - 10]);
    await assertSearchIndexExact(kv, form.id, "live");
  } finally {
    env.close();
  }
});
