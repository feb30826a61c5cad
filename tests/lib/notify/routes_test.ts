import assert from "node:assert/strict";
import { makeKey, makeWorkspace, postJson, testEnv } from "../../helpers.ts";

const BASE = "/api/v1/server/webhooks";

Deno.test("webhook routes: admin scope CRUD, secret shown once, deliveries paged, other workspace 404", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const other = await makeWorkspace(env.deps);
    const admin = { authorization: `Bearer ${await makeKey(env.deps, ws, { scopes: ["admin"] })}` };
    const read = { authorization: `Bearer ${await makeKey(env.deps, ws, { scopes: ["read"] })}` };
    const otherAdmin = {
      authorization: `Bearer ${await makeKey(env.deps, other, { scopes: ["admin"] })}`,
    };

    const denied = await postJson(env, BASE, { url: "https://hooks.example.com/a" }, read);
    assert.equal(denied.status, 403);
    assert.equal((await denied.json()).code, "insufficient_scope");

    const bad = await postJson(env, BASE, { url: "http://hooks.example.com/a" }, admin);
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).code, "bad_request");
    const badEvent = await postJson(
      env,
      BASE,
      { url: "https://h.example.com", events: ["x"] },
      admin,
    );
    assert.equal(badEvent.status, 400);

    const created = await postJson(env, BASE, { url: "https://hooks.example.com/a" }, admin);
    assert.equal(created.status, 201);
    const { webhook } = await created.json();
    assert.match(webhook.secret, /^whsec_/);
    assert.deepEqual(webhook.events, ["submission.created"]);
    assert.deepEqual(webhook.forms, []);
    assert.equal(webhook.enabled, true);

    const one = await env.request(`${BASE}/${webhook.id}`, { headers: admin });
    const got = (await one.json()).webhook;
    assert.equal(got.id, webhook.id);
    assert.equal(got.secret, undefined, "the secret is shown only at creation");

    const list = await (await env.request(`${BASE}?limit=5`, { headers: admin })).json();
    assert.equal(list.webhooks.length, 1);
    assert.equal(list.pagination.total, 1);

    const patched = await env.request(`${BASE}/${webhook.id}`, {
      method: "PATCH",
      headers: { ...admin, "content-type": "application/json" },
      body: JSON.stringify({ events: ["submission.deleted"], enabled: false }),
    });
    assert.equal(patched.status, 200);
    const p = (await patched.json()).webhook;
    assert.deepEqual([p.events, p.enabled], [["submission.deleted"], false]);

    const rotated = await postJson(env, `${BASE}/${webhook.id}/rotate`, {}, admin);
    const r = (await rotated.json()).webhook;
    assert.match(r.secret, /^whsec_/);
    assert.notEqual(r.secret, webhook.secret);

    const dl = await env.request(`${BASE}/${webhook.id}/deliveries`, { headers: admin });
    assert.deepEqual(await dl.json(), {
      deliveries: [],
      pagination: { page: 1, limit: 20, total: 0, total_pages: 0, has_more: false },
    });

    const foreign = await env.request(`${BASE}/${webhook.id}`, { headers: otherAdmin });
    assert.equal(foreign.status, 404);
    await foreign.body?.cancel();

    const del = await env.request(`${BASE}/${webhook.id}`, { method: "DELETE", headers: admin });
    assert.deepEqual(await del.json(), { deleted: true, id: webhook.id });
    const gone = await env.request(`${BASE}/${webhook.id}`, { headers: admin });
    assert.equal(gone.status, 404);
    await gone.body?.cancel();
  } finally {
    env.close();
  }
});
