/**
 * Webhook endpoints have the mode of the key that created them: live events reach live
 * endpoints only and test events test ones; every webhook route of the Server Data API is
 * scoped by the key's mode; test keys cannot read the audit log; every change is audited
 * with who, from where, and never the secret.
 */
import assert from "node:assert/strict";
import type { DeliverWebhookJob } from "@/lib/notify/jobs.ts";
import { keyPrefix } from "@/lib/keys/format.ts";
import { keys } from "@/lib/kv/keys.ts";
import { listDeliveries } from "@/lib/notify/deliver.ts";
import { listWebhooks, type Webhook } from "@/lib/notify/webhooks.ts";
import {
  makeForm,
  makeKey,
  makeWorkspace,
  postJson,
  type TestEnv,
  testEnv,
} from "../../helpers.ts";
import { receiver, runJobs, waitFor } from "./_support.ts";

const BASE = "/api/v1/server/webhooks";
const SCOPES = ["submit", "read", "admin"] as const;

function bearer(key: string) {
  return { authorization: `Bearer ${key}` };
}

async function createHook(env: TestEnv, key: string, url: string): Promise<Webhook> {
  const res = await postJson(env, BASE, { url }, bearer(key));
  const body = await res.json();
  assert.equal(res.status, 201, JSON.stringify(body));
  return body.webhook;
}

Deno.test("webhook modes - a test key's endpoint gets test events only, a live one live events only", async () => {
  const env = await testEnv({ WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_DELAYS: "30" });
  const liveRx = receiver();
  const testRx = receiver();
  const enqueued: DeliverWebhookJob[] = [];
  const enqueue = env.deps.jobs.enqueue.bind(env.deps.jobs);
  env.deps.jobs.enqueue = (op, job, opts) => {
    if (job.type === "deliver_webhook") enqueued.push(job);
    enqueue(op, job, opts);
  };
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    const liveKey = await makeKey(env.deps, ws, { type: "live", scopes: [...SCOPES] });
    const testKey = await makeKey(env.deps, ws, { type: "test", scopes: [...SCOPES] });
    const testHook = await createHook(env, testKey, testRx.url);
    const liveHook = await createHook(env, liveKey, liveRx.url);

    // Every delivery job of an event is enqueued in the one commit that stored it: once a
    // delivery arrived, the jobs enqueued since its submission are all there are.
    const submit = async (key: string, name: string) => {
      const since = enqueued.length;
      const res = await postJson(env, `/api/v1/submit/p/${form.id}`, {
        data: { name, email: `${name}@example.com` },
      }, bearer(key));
      assert.equal(res.status, 201);
      const id = (await res.json()).submission_id;
      return { id, hooks: () => [...new Set(enqueued.slice(since).map((j) => j.webhook_id))] };
    };
    const delivered = (rx: typeof liveRx, i: number) =>
      JSON.parse(rx.got[i].body).data.submission.id;

    const liveOne = await submit(liveKey, "live-one");
    await waitFor("the live delivery", () => liveRx.got.length === 1);
    assert.deepEqual(liveOne.hooks(), [liveHook.id]);
    assert.equal(delivered(liveRx, 0), liveOne.id);

    const testOne = await submit(testKey, "test-one");
    await waitFor("the test delivery", () => testRx.got.length === 1);
    assert.deepEqual(testOne.hooks(), [testHook.id]);
    assert.equal(delivered(testRx, 0), testOne.id);
    assert.equal(liveRx.got.length, 1);
    assert.deepEqual([testHook.mode, liveHook.mode], ["test", "live"]);
  } finally {
    env.close();
    await jobs;
    await liveRx.close();
    await testRx.close();
  }
});

Deno.test("webhook modes - every route is scoped by the key's mode; the audit log needs a live key", async () => {
  const env = await testEnv({ WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_DELAYS: "30" });
  const rx = receiver();
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const liveKey = await makeKey(env.deps, ws, { type: "live", scopes: [...SCOPES] });
    const testKey = await makeKey(env.deps, ws, { type: "test", scopes: [...SCOPES] });
    const live = await createHook(env, liveKey, rx.url);
    const test = await createHook(env, testKey, rx.url);
    // A delivery of the live endpoint, to try resending.
    assert.equal((await postJson(env, `${BASE}/${live.id}/test`, {}, bearer(liveKey))).status, 202);
    await waitFor(
      "the test event logged",
      async () => (await listDeliveries(env.deps, live.id)).length === 1,
    );
    const [delivery] = await listDeliveries(env.deps, live.id);

    const ids = async (key: string) =>
      (await (await env.request(BASE, { headers: bearer(key) })).json()).webhooks
        .map((w: Webhook) => [w.id, w.mode]);
    assert.deepEqual(await ids(testKey), [[test.id, "test"]]);
    assert.deepEqual(await ids(liveKey), [[live.id, "live"]]);

    const routes = (id: string, dlv: string): [string, string, unknown?][] => [
      ["GET", `${BASE}/${id}`],
      ["PATCH", `${BASE}/${id}`, { url: "https://attacker.example/steal" }],
      ["POST", `${BASE}/${id}/rotate`, {}],
      ["POST", `${BASE}/${id}/test`, {}],
      ["GET", `${BASE}/${id}/deliveries`],
      ["POST", `${BASE}/${id}/deliveries/${dlv}/resend`, {}],
      ["DELETE", `${BASE}/${id}`],
    ];
    const call = async (key: string, [method, path, body]: [string, string, unknown?]) => {
      const res = await env.request(path, {
        method,
        headers: { ...bearer(key), "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    for (const [key, id] of [[testKey, live.id], [liveKey, test.id]]) {
      for (const r of routes(id, delivery.id)) {
        const res = await call(key, r);
        assert.equal(res.status, 404, `${r[0]} ${r[1]}: ${JSON.stringify(res.body)}`);
      }
    }
    const kept = (await listWebhooks(env.deps, ws.id)).find((w) => w.id === live.id)!;
    assert.equal(kept.url, rx.url, "the live endpoint was not re-pointed");
    assert.equal(
      kept.secret,
      (await env.deps.kv.get<Webhook>(keys.webhook(live.id))).value!.secret,
    );

    // A test key's own endpoint: every route works.
    for (const r of routes(test.id, "dlv_none").filter((r) => !r[1].includes("resend"))) {
      assert.ok((await call(testKey, r)).status < 300, `${r[0]} ${r[1]}`);
    }

    const denied = await env.request("/api/v1/server/audit", { headers: bearer(testKey) });
    assert.equal(denied.status, 403);
    assert.equal((await denied.json()).code, "live_key_required");
    const audit = await env.request("/api/v1/server/audit?limit=100", { headers: bearer(liveKey) });
    assert.equal(audit.status, 200);
    const { events } = await audit.json();
    assert.ok(!JSON.stringify(events).includes("whsec_"), "no secret in the audit log");
    type Ev = { action: string; actor: string; ip: string; details: Record<string, unknown> };
    const actorOf = (key: string) => `key:${keyPrefix(key)}`;
    assert.deepEqual(
      (events as Ev[]).map((e) => [e.action, e.details.webhook_id, e.actor]).reverse(),
      [
        ["webhook.created", live.id, actorOf(liveKey)],
        ["webhook.created", test.id, actorOf(testKey)],
        ["webhook.test_sent", live.id, actorOf(liveKey)],
        ["webhook.updated", test.id, actorOf(testKey)],
        ["webhook.secret_rotated", test.id, actorOf(testKey)],
        ["webhook.test_sent", test.id, actorOf(testKey)],
        ["webhook.deleted", test.id, actorOf(testKey)],
      ],
    );
    const created = (events as Ev[]).find((e) => e.action === "webhook.created")!;
    assert.equal(created.ip, "203.0.113.0");
    assert.equal(created.details.mode, "test");
    const updated = (events as Ev[]).find((e) => e.action === "webhook.updated")!;
    assert.deepEqual(updated.details.changed, {
      url: { from: new URL(rx.url).host, to: "attacker.example" },
    });
  } finally {
    env.close();
    await jobs;
    await rx.close();
  }
});
