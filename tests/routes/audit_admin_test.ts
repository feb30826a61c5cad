import assert from "node:assert/strict";
import { listAudit } from "@/lib/privacy/audit.ts";
import { testEnv } from "@/tests/helpers.ts";
import { setup, signIn } from "@/tests/admin_support.ts";

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
