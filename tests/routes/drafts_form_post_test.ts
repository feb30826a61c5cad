/**
 * Drafts without JavaScript: a plain HTML form post naming its draft (`_draft_id`) removes
 * it as the JSON submit's `draft_id` does; a resume link renders the hosted page with the
 * draft's values and its `_draft_id`, uncached; a refused post keeps the draft named.
 * @module
 */
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import type { Submission } from "@/lib/schemas.ts";
import { countUnder, DRAFT_FORM, draftReq } from "@/tests/drafts_support.ts";
import { makeForm, makeWorkspace, postJson, testEnv } from "@/tests/helpers.ts";

function post(env: Awaited<ReturnType<typeof testEnv>>, path: string, fields: string[][]) {
  return env.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
}

Deno.test("drafts - a plain form post with _draft_id", async (t) => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, DRAFT_FORM);
    const base = `/api/v1/forms/p/${form.id}/drafts`;
    const start = async () =>
      await (await postJson(env, base, { data: { name: "Ada", email: "ada@example.com" } }))
        .json() as { draft_id: string; resume_token: string };

    await t.step("the resume link renders the draft's values and names it", async () => {
      const d = await start();
      const res = await env.request(`/f/${form.id}?resume=${encodeURIComponent(d.resume_token)}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.equal(res.headers.get("referrer-policy"), "same-origin");
      const html = await res.text();
      assert.match(html, /name="name"[^>]*value="Ada"/);
      assert.match(html, /value="ada@example.com"/);
      assert.match(html, new RegExp(`name="_draft_id" value="${d.draft_id}"`));
    });

    await t.step("a wrong token shows the empty form, cached as usual", async () => {
      const d = await start();
      const res = await env.request(`/f/${form.id}?resume=${d.draft_id}.wrongsecret`);
      assert.equal(res.status, 200);
      assert.notEqual(res.headers.get("cache-control"), "no-store");
      const html = await res.text();
      assert.doesNotMatch(html, /_draft_id/);
      assert.doesNotMatch(html, /value="Ada"/);
    });

    await t.step("the stored post removes its draft; _draft_id is not data", async () => {
      const d = await start();
      const other = await start();
      const res = await post(env, `/api/v1/submit/p/${form.id}`, [
        ["name", "Ada"],
        ["email", "ada@example.com"],
        ["_draft_id", d.draft_id],
      ]);
      assert.equal(res.status, 303, await res.text());
      assert.equal((await env.deps.kv.get(keys.draft(form.id, d.draft_id))).value, null);
      const gone = await draftReq(env, "GET", `${base}/${d.draft_id}`, d.resume_token);
      assert.equal(gone.status, 404);
      const kept = await draftReq(env, "GET", `${base}/${other.draft_id}`, other.resume_token);
      assert.equal(kept.status, 200, "another draft stays");
      const subs: Submission[] = [];
      for await (const e of env.deps.kv.list<Submission>({ prefix: keys.submissions(form.id) })) {
        subs.push(e.value);
      }
      assert.equal(subs.length, 1);
      assert.deepEqual(subs[0].fields, { name: "Ada", email: "ada@example.com" });
    });

    await t.step("a refused post from the hosted page keeps naming its draft", async () => {
      const d = await start();
      const before = await countUnder(env, keys.submissions(form.id));
      const page = await (await env.request(`/f/${form.id}`)).text();
      const key = /name="_idempotency_key" value="([^"]+)"/.exec(page)![1];
      const res = await post(env, `/api/v1/submit/p/${form.id}`, [
        ["_idempotency_key", key],
        ["name", "Ada"],
        ["_draft_id", d.draft_id],
      ]);
      assert.equal(res.status, 422);
      assert.match(await res.text(), new RegExp(`name="_draft_id" value="${d.draft_id}"`));
      assert.equal(
        (await draftReq(env, "GET", `${base}/${d.draft_id}`, d.resume_token)).status,
        200,
      );
      assert.equal(await countUnder(env, keys.submissions(form.id)), before, "nothing stored");
    });
  } finally {
    env.close();
  }
});
