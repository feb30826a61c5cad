/**
 * Rate-limit answers against real local receivers: a `429` (or a `503` with `Retry-After`,
 * or Discord's `retry_after` in the body) is retried when the service asked, 1 s to 1 h,
 * not on the failure schedule, for standard webhooks and every destination, and never
 * starts the endpoint's failing streak (what disables it). A plain `503` stays a failure.
 */
import assert from "node:assert/strict";
import { type Delivery, listDeliveries } from "@/lib/notify/deliver.ts";
import { notifySubmission } from "@/lib/notify/mod.ts";
import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import type { Format, Webhook } from "@/lib/notify/webhooks.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Form } from "@/lib/schemas.ts";
import { makeForm, makeWorkspace, type TestEnv, testEnv } from "../../helpers.ts";
import { type FakeAnswer, fakeService } from "./_fakes.ts";
import { runJobs, submissionOf, waitFor } from "./_support.ts";

/** A failure schedule far longer than the waits asked: a retry on it would show. */
const SLOW = { WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_DELAYS: "5000,300000,300000" };

/** A standard receiver on 127.0.0.1 answering `script(n)` (else 200) to its n-th request. */
function standardReceiver(script: (n: number) => FakeAnswer | null) {
  const got: { at: number }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    await req.text();
    const a = script(got.length + 1) ?? { status: 200, body: "ok" };
    got.push({ at: Date.now() });
    return new Response(a.body ?? "", { status: a.status, headers: a.headers });
  });
  return { got, url: `http://127.0.0.1:${server.addr.port}/hook`, close: () => server.shutdown() };
}

function receiverFor(format: Format, script: (n: number) => FakeAnswer | null) {
  return format === "standard" ? standardReceiver(script) : fakeService(format, script);
}

async function hookOf(env: TestEnv, id: string): Promise<Webhook> {
  return (await env.deps.kv.get<Webhook>(keys.webhook(id))).value!;
}

async function notifyOne(env: TestEnv, form: Form) {
  const submission = submissionOf(form, { name: "Ada", email: "ada@example.com" });
  await notifySubmission(env.deps, { type: "submission.created", form, submission });
}

/** How long after its attempt a logged retry is due (ms). */
function waitOfLog(d: Delivery): number {
  return Date.parse(d.next_attempt_at!) - Date.parse(d.at);
}

/** Each format's rate-limit answer asking for 1 s. */
const LIMITED: [string, Format, FakeAnswer][] = [
  ["standard 429 Retry-After", "standard", { status: 429, headers: { "retry-after": "1" } }],
  ["standard 503 Retry-After", "standard", { status: 503, headers: { "retry-after": "1" } }],
  ["slack 429", "slack", { status: 429, body: "rate_limited", headers: { "retry-after": "1" } }],
  ["discord 429 retry_after", "discord", {
    status: 429,
    body: JSON.stringify({ message: "You are being rate limited.", retry_after: 1, global: false }),
    headers: { "content-type": "application/json" },
  }],
  ["teams 429", "teams", { status: 429, headers: { "retry-after": "1" } }],
];

Deno.test("rate limits - retried at the asked time, never toward disabling", async (t) => {
  const env = await testEnv(SLOW);
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    for (const [what, format, limited] of LIMITED) {
      await t.step(`${what}: twice, then delivered about a second apart each`, async () => {
        const rx = receiverFor(format, (n) => (n <= 2 ? limited : null));
        try {
          const hook = await createWebhook(env.deps, ws.id, { url: rx.url, format }, {
            actor: "cli",
          });
          await notifyOne(env, form);
          await waitFor(
            "the first answer logged",
            async () => (await listDeliveries(env.deps, hook.id)).length >= 1,
          );
          assert.equal((await hookOf(env, hook.id)).failing_since, null, "not a failure");
          await waitFor("three attempts", () => rx.got.length === 3, 4_500);
          const gaps = [rx.got[1].at - rx.got[0].at, rx.got[2].at - rx.got[1].at];
          for (const gap of gaps) assert.ok(gap >= 950 && gap < 4_000, `gaps ${gaps}`);
          await waitFor(
            "three logged",
            async () => (await listDeliveries(env.deps, hook.id)).length === 3,
          );
          const log = await listDeliveries(env.deps, hook.id);
          assert.deepEqual(log.map((d) => d.outcome), ["delivered", "retrying", "retrying"]);
          assert.deepEqual(log.slice(1).map(waitOfLog), [1000, 1000]);
          const w = await hookOf(env, hook.id);
          assert.equal(w.enabled, true);
          assert.equal(w.failing_since, null);
        } finally {
          await rx.close();
        }
      });
    }

    const waits: [string, FakeAnswer, number, boolean][] = [
      ["Retry-After: 0 waits 1 s", { status: 429, headers: { "retry-after": "0" } }, 1000, false],
      [
        "Retry-After: 7200 waits 1 h",
        { status: 429, headers: { "retry-after": "7200" } },
        3_600_000,
        false,
      ],
      ["429 without a time waits the schedule's delay", { status: 429 }, 5000, false],
      ["503 without Retry-After is a failure", { status: 503 }, 5000, true],
    ];
    for (const [what, answer, wait, failure] of waits) {
      await t.step(what, async () => {
        const rx = standardReceiver(() => answer);
        try {
          const hook = await createWebhook(env.deps, ws.id, { url: rx.url }, { actor: "cli" });
          await notifyOne(env, form);
          await waitFor(
            "logged",
            async () => (await listDeliveries(env.deps, hook.id)).length >= 1,
          );
          const [d] = await listDeliveries(env.deps, hook.id);
          assert.equal(d.outcome, "retrying");
          assert.equal(waitOfLog(d), wait);
          assert.equal((await hookOf(env, hook.id)).failing_since !== null, failure);
        } finally {
          await rx.close();
        }
      });
    }
  } finally {
    env.close();
    await jobs;
  }
});
