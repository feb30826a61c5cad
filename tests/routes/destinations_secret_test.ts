/**
 * A destination's URL is its credential: after it is sent once, no answer shows more than
 * its host and last 4 characters (Server Data API, admin pages, CLI, audit log, delivery
 * log), and it is never signed.
 */
import assert from "node:assert/strict";
import { runCli } from "@/cli.ts";
import { listWebhooks } from "@/lib/notify/webhooks.ts";
import { page, post, setup, signIn } from "@/tests/admin_support.ts";
import { makeKey, postJson, testEnv } from "@/tests/helpers.ts";

const BASE = "/api/v1/server/webhooks";
const TOKEN = "xoxFAKEtokenThatMustNeverShow9Zq1";
const URL_1 = `https://hooks.slack.example/services/T1/B1/${TOKEN}`;
const URL_2 = `https://hooks.slack.example/services/T1/B1/${TOKEN}-rotated-W7x8`;

function shown(text: string): void {
  assert.ok(!text.includes(TOKEN), `the token shows in: ${text.slice(0, 300)}`);
}

Deno.test("destinations - the URL is never shown again, anywhere", async () => {
  const env = await testEnv();
  try {
    const { ws } = await setup(env);
    const admin = { authorization: `Bearer ${await makeKey(env.deps, ws, { scopes: ["admin"] })}` };

    const created = await postJson(env, BASE, { url: URL_1, format: "slack" }, admin);
    assert.equal(created.status, 201);
    const createdText = await created.text();
    shown(createdText);
    const { webhook } = JSON.parse(createdText);
    assert.equal(webhook.format, "slack");
    assert.equal(webhook.url, "https://hooks.slack.example/…9Zq1");
    assert.equal(webhook.secret, undefined, "a destination has no signing secret");

    for (const path of [`${BASE}/${webhook.id}`, BASE, `${BASE}/${webhook.id}/deliveries`]) {
      const res = await env.request(path, { headers: admin });
      assert.equal(res.status, 200);
      shown(await res.text());
    }
    const patch = (body: unknown) =>
      env.request(`${BASE}/${webhook.id}`, {
        method: "PATCH",
        headers: { ...admin, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const patched = await patch({ url: URL_2 });
    assert.equal(patched.status, 200);
    const patchedText = await patched.text();
    shown(patchedText);
    assert.equal(JSON.parse(patchedText).webhook.url, "https://hooks.slack.example/…W7x8");

    const rotate = await postJson(env, `${BASE}/${webhook.id}/rotate`, {}, admin);
    assert.equal(rotate.status, 400, "a destination has no secret to rotate");
    const toStandard = await patch({ format: "standard" });
    assert.equal(toStandard.status, 400, "switching to standard needs a new url");
    shown(await toStandard.text());

    const audit = await env.request("/api/v1/server/audit", { headers: admin });
    assert.equal(audit.status, 200);
    const auditText = await audit.text();
    shown(auditText);
    assert.ok(auditText.includes("hooks.slack.example"), "the audit log keeps the host");

    const cliArgs = (format: string) => [
      "webhook",
      "create",
      "--workspace",
      ws.id,
      "--format",
      format,
      "--url",
      `https://flows.example.com/workflows/1/invoke?sig=${TOKEN}`,
    ];
    const made = await runCli(env.deps, cliArgs("teams")) as { webhook: { format: string } };
    shown(JSON.stringify(made));
    assert.equal(made.webhook.format, "teams");
    await assert.rejects(() => runCli(env.deps, cliArgs("irc")), /format/);
    const cli = await runCli(env.deps, ["webhook", "list", "--workspace", ws.id]);
    shown(JSON.stringify(cli));

    // The admin: created from the form, listed, its delivery page.
    const cookie = await signIn(env, "owner@example.com");
    const { csrf } = await page(env, cookie, "/admin/webhooks");
    const res = await post(env, cookie, "/admin/webhooks", {
      _csrf: csrf,
      action: "create",
      format: "discord",
      url: `https://discord.example/api/webhooks/1/${TOKEN}`,
      events: "submission.created",
    });
    assert.equal(res.status, 303);
    assert.match(res.headers.get("location") ?? "", /notice=destination_created/);
    const list = await page(env, cookie, "/admin/webhooks");
    shown(list.html);
    assert.ok(list.html.includes("https://discord.example/…9Zq1"));
    for (const w of await listWebhooks(env.deps, ws.id)) {
      shown((await page(env, cookie, `/admin/webhooks/${w.id}`)).html);
    }

    // Switching back to standard with a new URL answers the new signing secret once.
    const back = await patch({ format: "standard", url: "https://hooks.example.com/std" });
    assert.equal(back.status, 200);
    const backed = (await back.json()).webhook;
    assert.match(backed.secret, /^whsec_/);
    assert.equal(backed.url, "https://hooks.example.com/std");
  } finally {
    env.close();
  }
});
