import assert from "node:assert/strict";
import { listAudit } from "@/lib/privacy/audit.ts";
import { postJson, testEnv } from "@/tests/helpers.ts";
import { page, post, setup, signIn } from "@/tests/admin_support.ts";

Deno.test("audit - admin sign-ins and CSV exports are logged with who and from where", async () => {
  const env = await testEnv();
  try {
    const { ws, form } = await setup(env);
    const cookie = await signIn(env, "owner@example.com", "198.51.100.23");
    const csv = await env.request(`/admin/forms/${form.id}/export.csv`, {
      headers: { cookie },
      ip: "198.51.100.23",
    });
    assert.equal(csv.status, 200);
    await csv.body?.cancel();
    const { events } = await listAudit(env.deps, ws.id, { page: 1, limit: 20 });
    const byAction = new Map(events.map((e) => [e.action, e]));
    const signIn_ = byAction.get("sign_in");
    assert.ok(signIn_, JSON.stringify(events));
    assert.equal(signIn_.actor, "user:owner@example.com");
    assert.equal(signIn_.ip, "198.51.100.0");
    const exported = byAction.get("export.csv");
    assert.ok(exported, JSON.stringify(events));
    assert.equal(exported.actor, "user:owner@example.com");
    assert.deepEqual(exported.details, { form: form.id, mode: "live" });
  } finally {
    env.close();
  }
});

Deno.test("audit - an admin's spam labels are logged per submission, with from and to", async () => {
  const env = await testEnv();
  try {
    const { ws, form } = await setup(env);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await postJson(env, `/api/v1/submit/p/${form.id}`, {
        data: { name: `Person ${i}`, email: `p${i}@example.com` },
      });
      assert.equal(res.status, 201);
      ids.push((await res.json()).submission_id);
    }
    const cookie = await signIn(env, "owner@example.com", "198.51.100.23");
    const base = `/admin/forms/${form.id}/submissions`;
    const { csrf } = await page(env, cookie, `${base}/${ids[0]}`);
    const one = await post(env, cookie, `${base}/${ids[0]}`, { _csrf: csrf, status: "spam" });
    assert.equal(one.status, 303);
    // Marking again is no change and no event.
    await post(env, cookie, `${base}/${ids[0]}`, { _csrf: csrf, status: "spam" });
    const many = await post(env, cookie, base, [
      ["_csrf", csrf],
      ["action", "mark_spam"],
      ["ids", ids[0]],
      ["ids", ids[1]],
    ]);
    assert.equal(many.status, 303);
    const { events } = await listAudit(env.deps, ws.id, {
      page: 1,
      limit: 20,
      action: "submission.labelled",
    });
    assert.equal(events.length, 2, JSON.stringify(events));
    for (const ev of events) {
      assert.equal(ev.actor, "user:owner@example.com");
      assert.match(ev.ip ?? "", /^\d+\.\d+\.\d+\.0$/, "the address, truncated");
      assert.equal(ev.details.to, "spam");
      assert.equal(ev.details.form, form.id);
    }
    assert.deepEqual(events.map((e) => e.details.submission).sort(), [...ids].sort());
    const log = await page(env, cookie, "/admin/audit?action=submission.labelled");
    assert.match(log.html, /Submission labelled/);
  } finally {
    env.close();
  }
});
