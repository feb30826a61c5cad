import assert from "node:assert/strict";
import { createUser } from "@/lib/admin/users.ts";
import { completionRate } from "@/lib/forms/analytics.ts";
import type { FormDefinition } from "@/lib/schemas.ts";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value, utcDay } from "@/lib/kv/kv.ts";
import { updateWorkspace } from "@/lib/workspaces/workspaces.ts";
import {
  makeForm,
  makeKey,
  makeWorkspace,
  postJson,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { page, PASSWORD, signIn } from "@/tests/admin_support.ts";

async function counter(env: TestEnv, formId: string, kind: string): Promise<number> {
  const key = keys.analytics(formId, "live", utcDay(env.deps.now()), kind);
  return u64Value((await env.deps.kv.get(key)).value);
}

Deno.test("events - counts views and starts, 202", async (t) => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "free");
    const form = await makeForm(env.deps, ws);
    const path = `/api/v1/forms/p/${form.id}/events`;

    await t.step("view and start each add one to today's counter", async () => {
      for (
        const body of [{ type: "view" }, { type: "view", session_id: "s-1" }, { type: "start" }]
      ) {
        const res = await postJson(env, path, body);
        assert.equal(res.status, 202);
        assert.deepEqual(await res.json(), { success: true });
      }
      assert.equal(await counter(env, form.id, "views"), 2);
      assert.equal(await counter(env, form.id, "starts"), 1);
    });

    await t.step("a session's view or start counts once a day", async () => {
      for (
        const body of [
          { type: "view", session_id: "s-1" },
          { type: "view", session_id: "s-1" },
          { type: "view", session_id: "s-2" },
          { type: "start", session_id: "s-1" },
          { type: "start", session_id: "s-1" },
        ]
      ) {
        const res = await postJson(env, path, body);
        assert.equal(res.status, 202);
        await res.body?.cancel();
      }
      assert.equal(await counter(env, form.id, "views"), 3, "s-1 was already counted; s-2 new");
      assert.equal(await counter(env, form.id, "starts"), 2);
      const views = await Promise.all(
        Array.from({ length: 5 }, () => postJson(env, path, { type: "view", session_id: "s-3" })),
      );
      for (const r of views) await r.body?.cancel();
      assert.equal(await counter(env, form.id, "views"), 4, "concurrent repeats count once");
    });

    await t.step("bad bodies are 400, wrong content type 415, unknown form 404", async () => {
      const bad = [
        {},
        { type: "submit" },
        { type: "view", extra: 1 },
        { type: "view", session_id: "x".repeat(129) },
        "[]",
        "nope",
      ];
      for (const body of bad) {
        const res = await postJson(env, path, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal((await res.json()).code, "bad_request");
      }
      const text = await env.request(path, {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: '{"type":"view"}',
      });
      assert.equal(text.status, 415);
      await text.body?.cancel();
      const missing = await postJson(env, "/api/v1/forms/p/fNOPENOPENOPE/events", { type: "view" });
      assert.equal(missing.status, 404);
      await missing.body?.cancel();
      assert.equal(await counter(env, form.id, "views"), 4, "nothing counted");
    });

    await t.step("a suspended workspace's form is a 404", async () => {
      await updateWorkspace(env.deps, ws.id, { suspended: true });
      const res = await postJson(env, path, { type: "view" }, {}, "192.0.2.200");
      assert.equal(res.status, 404);
      await res.body?.cancel();
      await updateWorkspace(env.deps, ws.id, { suspended: false });
    });
  } finally {
    env.close();
  }
});

Deno.test("events - 60 a minute per IP; a refused event counts nothing", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "free");
    const form = await makeForm(env.deps, ws);
    const path = `/api/v1/forms/p/${form.id}/events`;
    const statuses = await Promise.all(
      Array.from({ length: 70 }, async () => {
        const res = await postJson(env, path, { type: "view" }, {}, "198.51.100.20");
        await res.body?.cancel();
        return res.status;
      }),
    );
    const admitted = statuses.filter((s) => s === 202).length;
    // GCRA refills one a second: a slow machine may admit one or two more than the burst.
    assert.ok(admitted >= 60 && admitted <= 62, `${admitted} admitted`);
    assert.equal(statuses.filter((s) => s === 429).length, 70 - admitted);
    assert.equal(await counter(env, form.id, "views"), admitted, "one count per admitted event");
    const other = await postJson(env, path, { type: "start" }, {}, "198.51.100.21");
    assert.equal(other.status, 202, "another IP has its own budget");
    await other.body?.cancel();
    assert.equal(await counter(env, form.id, "starts"), 1);
  } finally {
    env.close();
  }
});

Deno.test("events - completion rate", () => {
  assert.equal(completionRate(0, 0), null);
  assert.equal(completionRate(5, 0), null);
  assert.equal(completionRate(1, 3), 0.3333);
  assert.equal(completionRate(4, 2), null, "more submissions than starts");
  assert.equal(completionRate(2, 2), 1);
});

/** A two-step form: contact details, then the message. */
const STEPPED: FormDefinition = {
  name: "Stepped",
  fields: [
    { name: "email", type: "email", required: true },
    { name: "message", type: "textarea" },
  ],
  steps: [
    { title: "You", fields: ["email"] },
    { title: "Message", fields: ["message"] },
  ],
};

Deno.test("events - steps reached by distinct sessions, in the API and the admin", async (t) => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    const form = await makeForm(env.deps, ws, STEPPED);
    const flat = await makeForm(env.deps, ws);
    const key = await makeKey(env.deps, ws, { scopes: ["read"] });
    const send = async (formId: string, body: unknown) => {
      const res = await postJson(env, `/api/v1/forms/p/${formId}/events`, body);
      const text = await res.text();
      return { status: res.status, text };
    };
    const analytics = async (formId: string) => {
      const res = await env.request(`/api/v1/server/forms/${formId}/analytics`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(res.status, 200);
      return (await res.json()).analytics;
    };

    await t.step("a view may carry the step shown; each session counts once a step", async () => {
      for (
        const body of [
          { type: "view", session_id: "a", step: 1 },
          { type: "view", session_id: "a", step: 1 },
          { type: "view", session_id: "a", step: 2 },
          { type: "view", session_id: "a", step: 2 },
          { type: "view", session_id: "b", step: 1 },
          { type: "view", session_id: "c", step: 1 },
          { type: "start", session_id: "c" },
          { type: "view", session_id: "c", step: 3 },
        ]
      ) {
        assert.equal((await send(form.id, body)).status, 202, JSON.stringify(body));
      }
      const a = await analytics(form.id);
      assert.deepEqual(a.steps, [{ step: 1, reached: 3 }, { step: 2, reached: 1 }]);
      assert.equal(a.views, 3, "a step's view is a view of the form, once per session");
      assert.equal(a.starts, 1);
    });

    await t.step("a form without steps reports none; a start with a step is 400", async () => {
      assert.equal((await send(flat.id, { type: "view", step: 1 })).status, 202);
      const a = await analytics(flat.id);
      assert.equal(a.steps, undefined);
      assert.equal(a.views, 1);
      for (
        const body of [{ type: "start", step: 1 }, { type: "view", step: 0 }, {
          type: "view",
          step: 1.5,
        }]
      ) {
        const res = await send(form.id, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(JSON.parse(res.text).code, "bad_request");
      }
    });

    await t.step("the admin overview shows the steps reached", async () => {
      await createUser(env.deps, {
        email: "owner@example.com",
        password: PASSWORD,
        workspaceIds: [ws.id],
        role: "owner",
        owner: true,
      });
      const cookie = await signIn(env, "owner@example.com");
      const { html } = await page(env, cookie, `/admin/forms/${form.id}`);
      const table = html.slice(html.indexOf('id="step-reach"'));
      assert.match(table, /<td>1<\/td><td>You<\/td><td class="num">3<\/td><td class="num">100%/);
      assert.match(table, /<td>2<\/td><td>Message<\/td><td class="num">1<\/td><td class="num">33%/);
      const flatPage = await page(env, cookie, `/admin/forms/${flat.id}`);
      assert.ok(!flatPage.html.includes('id="step-reach"'), "no steps, no table");
    });
  } finally {
    env.close();
  }
});
