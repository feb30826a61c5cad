/**
 * A form's Integrations tab: its email, webhooks and destinations (only those that apply to
 * it) with their last delivery state, a working "Send test" for each (a test mail over real
 * SMTP, a test message to a Slack fake), and an endpoint disabled by its service shown with
 * the reason, there and on the Webhooks page.
 */
import assert from "node:assert/strict";
import { createUser } from "@/lib/admin/users.ts";
import { listDeliveries } from "@/lib/notify/deliver.ts";
import { notifySubmission } from "@/lib/notify/mod.ts";
import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import type { FormDefinition } from "@/lib/schemas.ts";
import { page, PASSWORD, post, signIn } from "@/tests/admin_support.ts";
import { CONTACT_FORM, makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { fakeService } from "@/tests/lib/notify/_fakes.ts";
import { receiver, runJobs, smtp, submissionOf, waitFor } from "@/tests/lib/notify/_support.ts";

const DEF: FormDefinition = {
  ...CONTACT_FORM,
  notifications: { emails: ["owner@example.com", "sales@example.com"] },
};

Deno.test("integrations tab - lists what applies, with states, and sends tests", async () => {
  const mail = await smtp();
  const env = await testEnv({ SMTP_URL: mail.url, WEBHOOK_ALLOW_PRIVATE: "1" });
  const slack = fakeService("slack");
  const archived = fakeService("slack", () => ({ status: 410, body: "channel_is_archived" }));
  const std = receiver();
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, DEF);
    const other = await makeForm(env.deps, ws);
    await createUser(env.deps, {
      email: "admin@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "owner",
      owner: true,
    });
    const cli = { actor: "cli" };
    const hook = await createWebhook(env.deps, ws.id, { url: std.url, forms: [form.id] }, cli);
    const dest = await createWebhook(env.deps, ws.id, { url: slack.url, format: "slack" }, cli);
    const gone = await createWebhook(env.deps, ws.id, {
      url: archived.url,
      format: "slack",
      forms: [form.id],
    }, cli);
    const elsewhere = await createWebhook(env.deps, ws.id, {
      url: "https://elsewhere.example.com/hook",
      forms: [other.id],
    }, cli);

    await notifySubmission(env.deps, {
      type: "submission.created",
      form,
      submission: submissionOf(form, { name: "Ada", email: "ada@example.com" }),
    });
    await waitFor("the owner mail", () => mail.mails.length === 1);
    for (const id of [hook.id, dest.id, gone.id]) {
      await waitFor("a delivery", async () => (await listDeliveries(env.deps, id)).length === 1);
    }

    const cookie = await signIn(env, "admin@example.com");
    const path = `/admin/forms/${form.id}/integrations`;
    const tab = await page(env, cookie, path);
    assert.equal(tab.res.status, 200);
    const html = tab.html;
    assert.ok(html.includes("owner@example.com, sales@example.com"));
    assert.match(html, /badge completed">accepted/, "the owner mail's state");
    assert.ok(html.includes(hook.url), "the standard webhook");
    assert.ok(html.includes("Destination: slack"));
    assert.ok(html.includes(`${new URL(slack.url).protocol}//${new URL(slack.url).host}/…`));
    assert.ok(!html.includes(slack.url) && !html.includes(archived.url), "URLs stay masked");
    assert.ok(!html.includes(elsewhere.id), "a webhook of another form is not listed");
    assert.equal((html.match(/badge completed">delivered/g) ?? []).length, 2);
    assert.match(html, /disabled: Slack answered 410 channel_is_archived: the channel is archived/);
    const hooksPage = await page(env, cookie, "/admin/webhooks");
    assert.match(hooksPage.html, /was disabled: Slack answered 410 channel_is_archived/);

    // Send test: the mail, through the mailer, to the owner addresses.
    const sent = await post(env, cookie, path, { _csrf: tab.csrf, action: "test_mail" });
    assert.equal(sent.status, 303);
    assert.match(sent.headers.get("location") ?? "", /notice=test_mail_sent/);
    await waitFor("the test mail", () => mail.mails.length === 2);
    const test = mail.mails[1];
    assert.match(test.subject ?? "", /^\[Test\] New submission to Contact/);
    assert.match(test.text ?? "", /Example name/);
    assert.match(test.text ?? "", new RegExp(`/admin/forms/${form.id}/integrations`));

    // Send test: a destination's test message, in Slack's shape.
    const before = slack.got.length;
    const t = await post(env, cookie, path, {
      _csrf: tab.csrf,
      action: "test_webhook",
      id: dest.id,
    });
    assert.equal(t.status, 303);
    await waitFor("the test message", () => slack.got.length === before + 1);
    assert.deepEqual(slack.got[before].problems, []);
    assert.match(String(slack.got[before].body.text), /Test message from Formwell/);

    // A form with no addresses: its test button is off and a forced post is a clear 400.
    const bare = await page(env, cookie, `/admin/forms/${other.id}/integrations`);
    assert.match(bare.html, /no addresses/);
    const refused = await post(env, cookie, `/admin/forms/${other.id}/integrations`, {
      _csrf: bare.csrf,
      action: "test_mail",
    });
    assert.equal(refused.status, 400);
  } finally {
    env.close();
    await jobs;
    await mail.close();
    await slack.close();
    await archived.close();
    await std.close();
  }
});
