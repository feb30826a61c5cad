/**
 * Destinations (Slack, Discord, Teams formats) against local fakes that speak each service's
 * protocol and check its documented shape: delivery, rate-limit answers honoured, permanent
 * errors disabling the endpoint with a reason, and the URL never shown again.
 */
import assert from "node:assert/strict";
import { listDeliveries } from "@/lib/notify/deliver.ts";
import { notifySubmission } from "@/lib/notify/mod.ts";
import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import type { Format, Webhook } from "@/lib/notify/webhooks.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Form } from "@/lib/schemas.ts";
import type { TestEnv } from "../../helpers.ts";
import { makeForm, makeWorkspace, testEnv } from "../../helpers.ts";
import { type FakeAnswer, fakeService, type Service } from "./_fakes.ts";
import { runJobs, submissionOf, waitFor } from "./_support.ts";

const FAST = { WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_DELAYS: "30,30,30" };
const CLI = { actor: "cli" };
const SERVICES: Service[] = ["slack", "discord", "teams"];

/** A hostile value: markup, mentions and links of every service, and much text. */
const HOSTILE = "<!channel> @everyone <@123> [x](https://evil.example) *b* _i_ & <b>" +
  "é😀".repeat(3000);

async function notifyOne(env: TestEnv, form: Form, fields: Record<string, unknown>) {
  const sub = submissionOf(form, fields);
  await notifySubmission(env.deps, { type: "submission.created", form, submission: sub });
  return sub;
}

async function hookOf(env: TestEnv, id: string): Promise<Webhook> {
  return (await env.deps.kv.get<Webhook>(keys.webhook(id))).value!;
}

/** What a destination test works with: the environment, the fake, the form and the endpoint. */
interface Setup {
  env: TestEnv;
  fake: ReturnType<typeof fakeService>;
  form: Form;
  hookId: string;
}

/** Runs `fn` with a fake of `service` (answering `script`) and a destination posting to it. */
async function withDestination(
  service: Service,
  script: (n: number) => FakeAnswer | null,
  fn: (s: Setup) => Promise<void>,
): Promise<void> {
  const env = await testEnv(FAST);
  const fake = fakeService(service, script);
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    const hook = await createWebhook(env.deps, ws.id, { url: fake.url, format: service }, CLI);
    await fn({ env, fake, form, hookId: hook.id });
  } finally {
    env.close();
    await jobs;
    await fake.close();
  }
}

Deno.test("destinations - each service gets its own message within its limits", async (t) => {
  for (const service of SERVICES) {
    await t.step(service, async () => {
      await withDestination(service, () => null, async ({ env, fake, form, hookId }) => {
        const many: Record<string, unknown> = { name: HOSTILE, email: "p@example.com" };
        for (let i = 0; i < 40; i++) many[`extra_${i}`] = `value ${i} `.repeat(200);
        const sub = await notifyOne(env, form, many);
        await waitFor(
          "a delivery",
          async () => (await listDeliveries(env.deps, hookId)).length > 0,
        );
        const [d] = await listDeliveries(env.deps, hookId);
        assert.deepEqual(fake.got[0].problems, [], "the fake found the shape valid");
        assert.equal(d.outcome, "delivered");
        assert.equal(d.status, { slack: 200, discord: 204, teams: 202 }[service]);
        const got = fake.got[0];
        assert.equal(got.headers["webhook-signature"], undefined, "destinations are not signed");
        const raw = got.raw;
        assert.ok(raw.includes("Contact"), "the form's name");
        assert.ok(raw.includes(`#${sub.number}`), "the submission number");
        assert.ok(raw.includes(`/admin/forms/${form.id}/submissions/${sub.id}`), "admin link");
        // Discord's Markdown escaping puts a backslash before "@" (shown as typed).
        const email = service === "discord" ? "p\\\\@example.com" : "p@example.com";
        assert.ok(raw.includes(email), "a field value");
        if (service === "slack") {
          assert.ok(!raw.includes("<!channel>"), "Slack markup of the visitor escaped");
          assert.ok(raw.includes("&lt;!channel&gt; @everyone &lt;@123&gt;"));
          const blocks = got.body.blocks as { fields?: { verbatim?: boolean }[] }[];
          assert.ok(blocks.flatMap((b) => b.fields ?? []).every((f) => f.verbatim === true));
          assert.match(String(got.body.text), /^New submission #\d+ to Contact$/);
        }
        if (service === "discord") {
          assert.deepEqual(got.body.allowed_mentions, { parse: [] });
          const embed = (got.body.embeds as { fields: { value: string }[] }[])[0];
          assert.ok(embed.fields.some((f) => f.value.startsWith("\\<!channel\\> \\@everyone")));
          assert.ok(embed.fields.length <= 25);
        }
        if (service === "teams") {
          const att = (got.body.attachments as { content: { body: unknown[] } }[])[0];
          // Text runs are never Markdown: the visitor's text goes in as it was (bounded).
          assert.ok(JSON.stringify(att.content.body).includes("<!channel> @everyone <@123>"));
        }
      });
    });
  }
});

/** What each fake answers first when rate limiting, and the least wait it asks for (ms). */
const RATE_LIMITED: Record<Service, [FakeAnswer, number]> = {
  slack: [{ status: 429, body: "rate_limited", headers: { "retry-after": "1" } }, 1000],
  discord: [{
    status: 429,
    body: JSON.stringify({
      message: "You are being rate limited.",
      retry_after: 1.2,
      global: false,
    }),
    headers: { "content-type": "application/json" },
  }, 1200],
  teams: [{ status: 429, body: "", headers: { "retry-after": "1" } }, 1000],
};

Deno.test("destinations - a 429 is retried no sooner than the service asked", async (t) => {
  for (const service of SERVICES) {
    await t.step(service, async () => {
      const [limited, wait] = RATE_LIMITED[service];
      const script = (n: number) => (n === 1 ? limited : null);
      await withDestination(service, script, async ({ env, fake, form, hookId }) => {
        await notifyOne(env, form, { name: "n", email: "n@example.com" });
        await waitFor("the retry", () => fake.got.length === 2, 15_000);
        const gap = fake.got[1].at - fake.got[0].at;
        assert.ok(gap >= wait, `retried after ${gap} ms, asked ${wait} ms (schedule 30 ms)`);
        await waitFor("logged", async () => (await listDeliveries(env.deps, hookId)).length === 2);
        const log = await listDeliveries(env.deps, hookId);
        assert.deepEqual(log.map((d) => d.outcome), ["delivered", "retrying"]);
        assert.equal((await hookOf(env, hookId)).enabled, true);
      });
    });
  }
});

/** A permanent answer of each service and what its disabled reason must say. */
const PERMANENT: [Service, FakeAnswer, RegExp][] = [
  ["slack", { status: 410, body: "channel_is_archived" }, /channel_is_archived.*archived/],
  ["slack", { status: 404, body: "no_service" }, /no_service/],
  ["slack", { status: 400, body: "invalid_payload" }, /invalid_payload/],
  ["slack", { status: 403, body: "action_prohibited" }, /action_prohibited/],
  ["discord", {
    status: 404,
    body: JSON.stringify({ message: "Unknown Webhook", code: 10015 }),
  }, /404 Unknown Webhook \(10015\)/],
  ["teams", {
    status: 404,
    body: JSON.stringify({ error: { code: "WorkflowNotFound" } }),
  }, /404 .*WorkflowNotFound/],
];

Deno.test("destinations - permanent errors disable the endpoint with the reason", async (t) => {
  for (const [service, answer, reason] of PERMANENT) {
    await t.step(`${service} ${answer.status} ${answer.body?.slice(0, 30)}`, async () => {
      await withDestination(service, () => answer, async ({ env, fake, form, hookId }) => {
        await notifyOne(env, form, { name: "n", email: "n@example.com" });
        await waitFor("logged", async () => (await listDeliveries(env.deps, hookId)).length === 1);
        const w = await hookOf(env, hookId);
        assert.equal(w.enabled, false);
        assert.match(w.disabled_reason ?? "", reason);
        assert.equal((await listDeliveries(env.deps, hookId))[0].outcome, "disabled");
        assert.equal(fake.got.length, 1);
        // Disabled: the next submission enqueues nothing for it.
        const next = submissionOf(form, { name: "m", email: "m@example.com" });
        const queued = await notifySubmission(env.deps, {
          type: "submission.created",
          form,
          submission: next,
        });
        assert.equal(queued, null);
      });
    });
  }
});

Deno.test("destinations - a refused message fails without retries; the endpoint stays", async () => {
  const refused = {
    status: 400,
    body: JSON.stringify({ message: "Invalid Form Body", code: 50035 }),
  };
  await withDestination("discord", () => refused, async ({ env, fake, form, hookId }) => {
    await notifyOne(env, form, { name: "n", email: "n@example.com" });
    await waitFor("logged", async () => (await listDeliveries(env.deps, hookId)).length === 1);
    const [d] = await listDeliveries(env.deps, hookId);
    assert.equal(d.outcome, "failed", "failed, not retrying: no retry was enqueued with it");
    assert.match(d.error ?? "", /Invalid Form Body \(50035\)/);
    assert.equal((await hookOf(env, hookId)).enabled, true);
    assert.equal(fake.got.length, 1);
  });
});

Deno.test("destinations - formats are validated; standard stays the default", async () => {
  const env = await testEnv(FAST);
  try {
    const ws = await makeWorkspace(env.deps);
    const std = await createWebhook(env.deps, ws.id, { url: "https://hooks.example.com/x" }, CLI);
    assert.equal(std.format, "standard");
    assert.match(std.secret ?? "", /^whsec_/);
    assert.equal(std.url, "https://hooks.example.com/x");
    await assert.rejects(
      () => createWebhook(env.deps, ws.id, { url: "https://x.example/y", format: "irc" }, CLI),
      /format/,
    );
    const formats: Format[] = ["slack", "discord", "teams"];
    for (const format of formats) {
      const d = await createWebhook(env.deps, ws.id, {
        url: `https://x.example/${format}/SECRETabcd`,
        format,
      }, CLI);
      assert.equal(d.secret, undefined);
      assert.equal(d.url, "https://x.example/…abcd");
    }
  } finally {
    env.close();
  }
});
