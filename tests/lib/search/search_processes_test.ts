/**
 * The search index with two processes on one KV file (`JOBS=table`): this test's app and a
 * `main.ts` take submissions for one form side by side, the CLI rebuilds the index in a
 * third process meanwhile, labels and deletes go through either; every search answers
 * from both processes with the exact total and the index equals a recount.
 * @module
 */
import assert from "node:assert/strict";
import { makeForm, makeKey, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { runCliProcess, startServer } from "@/tests/processes.ts";
import { assertCountersExact } from "@/tests/recount.ts";
import { setSubmissionStatus } from "@/lib/submissions/status.ts";

Deno.test("search (2 processes) - submits, labels, deletes and a rebuild keep it exact", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-search-" });
  const kvPath = `${dir}/kv.sqlite`;
  const common = {
    KV_PATH: kvPath,
    JOBS: "table",
    RATE_LIMITS: JSON.stringify({ submit: 100_000 }),
  };
  const env = await testEnv(common);
  const server = await startServer({
    ...common,
    FORMWELL_ENV: "test",
    FORMWELL_SEED: "0",
    LOCAL_STORAGE_DIR: `${dir}/files`,
  });
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws);
    const key = await makeKey(env.deps, ws, { scopes: ["read", "submit", "admin"] });
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const submit = async (i: number) => {
      const init = {
        method: "POST",
        headers: auth,
        body: JSON.stringify({
          data: { name: `Ann ${i % 5 ? "Lee" : "Zebrowski"}`, email: `ann${i}@example.com` },
        }),
      };
      const res = i % 2
        ? await fetch(`${server.url}/api/v1/submit/p/${form.id}`, init)
        : await env.app.request(`http://localhost/api/v1/submit/p/${form.id}`, init);
      assert.equal(res.status, 201, await res.clone().text());
      return (await res.json()).submission_id as string;
    };
    const ids: string[] = [];
    const first = await Promise.all(Array.from({ length: 40 }, (_, i) => submit(i)));
    ids.push(...first);
    // The rebuild runs in a third process while both keep taking submissions.
    const [rebuild, more] = await Promise.all([
      runCliProcess({ ...common, NO_COLOR: "1" }, "search", "rebuild", "--form", form.id),
      Promise.all(Array.from({ length: 40 }, (_, i) => submit(40 + i))),
    ]);
    assert.equal(rebuild.code, 0, rebuild.stderr);
    ids.push(...more);
    // Labelled here, deleted through the other process.
    for (const id of [ids[1], ids[2], ids[3]]) {
      await setSubmissionStatus(env.deps, form.id, id, "spam");
    }
    const del = await fetch(`${server.url}/api/v1/server/forms/${form.id}/submissions`, {
      method: "DELETE",
      headers: auth,
      body: JSON.stringify({ ids: [ids[5], ids[6]] }),
    });
    assert.equal(del.status, 200);
    await del.body?.cancel();

    const search = async (base: string, qs: string) => {
      const path = `/api/v1/server/forms/${form.id}/submissions?${qs}`;
      const res = base
        ? await fetch(`${base}${path}`, { headers: auth })
        : await env.app.request(`http://localhost${path}`, { headers: auth });
      return (await res.json()).pagination.total as number;
    };
    for (const base of ["", server.url]) {
      assert.equal(await search(base, "search=ann"), 78);
      // Every fifth is a Zebrowski (0, 5, …, 75): 16, of which #5 was deleted.
      assert.equal(await search(base, "search=zebrow"), 15);
      assert.equal(await search(base, "search=ann&status=spam"), 3);
      assert.equal(await search(base, `search=${ids[70]}`), 1);
      assert.equal(await search(base, "search=ann6%40example.com"), 0);
      assert.equal(await search(base, "search=ann7%40example.com"), 1);
    }
    await assertCountersExact(env.deps.kv, form.id, "live");
  } finally {
    await server.stop();
    env.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
