import assert from "node:assert/strict";
import { completionRate } from "@/lib/forms/analytics.ts";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value, utcDay } from "@/lib/kv/kv.ts";
import { updateWorkspace } from "@/lib/workspaces/workspaces.ts";
import { makeForm, makeWorkspace, postJson, type TestEnv, testEnv } from "@/tests/helpers.ts";

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
