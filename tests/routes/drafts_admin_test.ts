/**
 * The admin's Drafts tab: the count, steps and age of a form's drafts for everyone who may
 * see submissions; opening a draft's values and deleting one (admins only) are audited.
 * @module
 */
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { listAudit } from "@/lib/privacy/audit.ts";
import { makeForm, makeWorkspace, postJson, testEnv } from "@/tests/helpers.ts";
import { member } from "@/tests/account_support.ts";
import { page, post, signIn } from "@/tests/admin_support.ts";
import { DRAFT_FORM } from "@/tests/drafts_support.ts";

Deno.test("drafts admin - the Drafts tab lists, opens (audited) and deletes (admins)", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, DRAFT_FORM);
    await member(env, ws, "admin@example.com", "admin");
    await member(env, ws, "viewer@example.com", "viewer");
    const d = await (await postJson(env, `/api/v1/forms/p/${form.id}/drafts`, {
      data: { name: "Ada Lovelace" },
      step: 2,
    })).json();
    const path = `/admin/forms/${form.id}/drafts`;

    const viewer = await signIn(env, "viewer@example.com");
    const seen = await page(env, viewer, path);
    assert.equal(seen.res.status, 200);
    assert.match(seen.html, /1 draft not submitted \(kept 7 days\)/);
    assert.ok(seen.html.includes(d.draft_id));
    assert.ok(!seen.html.includes("Ada Lovelace"), "values only when opened");
    assert.ok(!seen.html.includes(">Delete<"), "viewers cannot delete");
    const opened = await page(env, viewer, `${path}?open=${d.draft_id}`);
    assert.ok(opened.html.includes("Ada Lovelace"));
    const refused = await post(env, viewer, path, {
      _csrf: seen.csrf,
      action: "delete",
      id: d.draft_id,
    });
    assert.equal(refused.status, 403);

    const admin = await signIn(env, "admin@example.com");
    const own = await page(env, admin, path);
    const res = await post(env, admin, path, { _csrf: own.csrf, action: "delete", id: d.draft_id });
    assert.equal(res.status, 303);
    assert.equal((await env.deps.kv.get(keys.draft(form.id, d.draft_id))).value, null);

    const events = (await listAudit(env.deps, ws.id, { page: 1, limit: 20 })).events;
    const of = (a: string) => events.filter((e) => e.action === a).map((e) => [e.actor, e.details]);
    assert.deepEqual(of("draft.viewed"), [[
      "user:viewer@example.com",
      { form: form.id, draft: d.draft_id },
    ]]);
    assert.deepEqual(of("draft.deleted"), [[
      "user:admin@example.com",
      { form: form.id, draft: d.draft_id },
    ]]);
  } finally {
    env.close();
  }
});
