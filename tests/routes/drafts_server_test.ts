/**
 * Drafts seen from backends and admins' tools: the Server Data API list (read scope, no
 * token, live data only), analytics' `drafts` and furthest steps, and export and erase by
 * email covering drafts.
 * @module
 */
import assert from "node:assert/strict";
import { runErase } from "@/lib/privacy/erase.ts";
import { keys } from "@/lib/kv/keys.ts";
import {
  makeForm,
  makeKey,
  makeWorkspace,
  postJson,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { countUnder, DRAFT_FORM, draftReq } from "@/tests/drafts_support.ts";

function get(env: TestEnv, path: string, key: string) {
  return env.request(`/api/v1/server${path}`, { headers: { authorization: `Bearer ${key}` } });
}

async function startDrafts(env: TestEnv, formId: string, bodies: unknown[]) {
  const out = [];
  for (const b of bodies) {
    out.push(await (await postJson(env, `/api/v1/forms/p/${formId}/drafts`, b)).json());
  }
  return out;
}

Deno.test("drafts - the Server Data API lists them and analytics count them", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "business");
    const form = await makeForm(env.deps, ws, DRAFT_FORM);
    const [a, b, c] = await startDrafts(env, form.id, [
      { data: { name: "A" }, step: 1 },
      { data: { name: "B", email: "b@example.com" }, step: 3 },
      { data: {}, step: 2 },
    ]);
    // Going back a step keeps the furthest one reached.
    await draftReq(env, "PUT", `/api/v1/forms/p/${form.id}/drafts/${b.draft_id}`, b.resume_token, {
      data: { name: "B", email: "b@example.com" },
      step: 2,
    });
    // A submitted draft is no longer where anyone stopped.
    await postJson(env, `/api/v1/submit/p/${form.id}`, {
      data: { name: "C", email: "c@example.com" },
      draft_id: c.draft_id,
    });
    const reader = await makeKey(env.deps, ws, { scopes: ["read"] });
    const res = await get(env, `/forms/${form.id}/drafts?limit=1`, reader);
    assert.equal(res.status, 200);
    const page = await res.json();
    assert.equal(page.pagination.total, 2);
    assert.equal(page.pagination.has_more, true);
    assert.equal(page.drafts[0].id, b.draft_id, "newest first");
    assert.deepEqual(page.drafts[0].data, { name: "B", email: "b@example.com" });
    assert.equal(page.drafts[0].step, 2);
    assert.equal(page.drafts[0].furthest_step, 3);
    const all = await (await get(env, `/forms/${form.id}/drafts`, reader)).text();
    for (const d of [a, b]) {
      assert.ok(!all.includes(d.resume_token.split(".")[1]), "no token");
    }
    assert.ok(!all.includes("token"));

    const analytics = (await (await get(env, `/forms/${form.id}/analytics`, reader)).json())
      .analytics;
    assert.equal(analytics.drafts, 2);
    assert.equal(analytics.submissions, 1);
    assert.deepEqual(analytics.draft_steps, [{ step: 1, drafts: 1 }, { step: 3, drafts: 1 }]);
    assert.deepEqual(analytics.draft_fields, { name: 2, email: 1 });

    const tester = await makeKey(env.deps, ws, { type: "test", scopes: ["read"] });
    const none = await (await get(env, `/forms/${form.id}/drafts`, tester)).json();
    assert.deepEqual(none.drafts, [], "test keys never see live drafts");
    const submitOnly = await makeKey(env.deps, ws, { scopes: ["submit"] });
    assert.equal((await get(env, `/forms/${form.id}/drafts`, submitOnly)).status, 403);
    const other = await makeKey(env.deps, await makeWorkspace(env.deps), { scopes: ["read"] });
    assert.equal((await get(env, `/forms/${form.id}/drafts`, other)).status, 404);
  } finally {
    env.close();
  }
});

Deno.test("drafts - export and erase by email cover drafts", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, DRAFT_FORM);
    const [mine, , later] = await startDrafts(env, form.id, [
      { data: { name: "Ada", email: "Ada@Example.com" } },
      { data: { name: "Bob", email: "bob@example.com" } },
      { data: { name: "Ada" } },
    ]);
    // The address typed later is indexed at that save.
    const saved = await draftReq(
      env,
      "PUT",
      `/api/v1/forms/p/${form.id}/drafts/${later.draft_id}`,
      later.resume_token,
      { data: { name: "Ada", email: "ADA@example.com" } },
    );
    assert.equal(saved.status, 200);
    const reader = await makeKey(env.deps, ws, { scopes: ["read"] });
    const exported = await (await get(env, `/privacy/export?email=ada@example.com`, reader))
      .json();
    assert.deepEqual(
      exported.drafts.map((d: { id: string }) => d.id).sort(),
      [mine.draft_id, later.draft_id].sort(),
    );
    assert.deepEqual(exported.drafts[0].form, { public_id: form.id, name: form.name });

    const admin = await makeKey(env.deps, ws, { scopes: ["read", "admin"] });
    const erase = await env.request("/api/v1/server/privacy/erase", {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com" }),
    });
    assert.equal(erase.status, 202);
    await runErase(env.deps, (await erase.json()).job.id);
    for (const d of [mine, later]) {
      assert.equal((await env.deps.kv.get(keys.draft(form.id, d.draft_id))).value, null);
      const res = await draftReq(
        env,
        "GET",
        `/api/v1/forms/p/${form.id}/drafts/${d.draft_id}`,
        d.resume_token,
      );
      assert.equal(res.status, 404);
    }
    assert.equal(await countUnder(env, keys.drafts(form.id)), 1, "Bob's draft stays");
    assert.equal(await countUnder(env, ["drafts_by_email"]), 1);
    assert.equal(await countUnder(env, keys.draftsDue()), 1);
    const after = await (await get(env, `/privacy/export?email=ada@example.com`, reader)).json();
    assert.deepEqual(after.drafts, []);
  } finally {
    env.close();
  }
});
