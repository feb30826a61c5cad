/**
 * Issue 17's admin pages in headless Chromium against the real app with the real job
 * runner: notification settings in the form editor (a bad address refused in words), the
 * owner's mail in the Outbox, a webhook to a local receiver (secret shown once), its
 * delivery log with Resend and Send test event, and the disabled-endpoint banner; axe-core
 * on every page.
 */
import assert from "node:assert/strict";
import { createUser } from "@/lib/admin/users.ts";
import { getForm } from "@/lib/forms/forms.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import { listOutbox } from "@/lib/notify/outbox.ts";
import { mutateWebhook } from "@/lib/notify/webhook_edits.ts";
import { listWebhooks } from "@/lib/notify/webhooks.ts";
import { CONTACT_FORM, makeForm, makeKey, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { freePort } from "@/tests/processes.ts";
import { waitFor } from "@/tests/lib/notify/_support.ts";
import { assertNoAxeViolations } from "./axe.ts";
import { openPage, serveApp, signIn } from "./admin_session.ts";
import { chromiumPresent } from "./chromium.ts";

const PASSWORD = "notify-admin-password";

Deno.test({
  name: "notify admin browser - settings, outbox, webhooks, delivery log, with axe",
  ignore: !(await chromiumPresent()),
  async fn(t) {
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = await testEnv({ BASE_URL: base, TRUST_PROXY: "0", WEBHOOK_ALLOW_PRIVATE: "1" });
    const got: { type: string; id: string }[] = [];
    const rx = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
      const body = JSON.parse(await req.text()) as { type: string };
      got.push({ type: body.type, id: req.headers.get("webhook-id") ?? "" });
      return new Response("thanks <b>receiver</b>");
    });
    env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
    const ws = await makeWorkspace(env.deps, "pro");
    await createUser(env.deps, {
      email: "owner@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "owner",
      owner: true,
    });
    const form = await makeForm(env.deps, ws, CONTACT_FORM);
    const key = await makeKey(env.deps, ws, { scopes: ["submit"] });
    const server = serveApp(env, port);
    const { browser, page } = await openPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    const hookUrl = `http://127.0.0.1:${rx.addr.port}/hook`;

    try {
      await t.step("sign in", async () => {
        await signIn(page, base, "owner@example.com", PASSWORD);
      });

      await t.step("notification settings: refused in words, then saved", async () => {
        await page.goto(`${base}/admin/forms/${form.id}/edit`);
        await page.locator(`[data-island="FieldBuilder"][data-hydrated]`).waitFor();
        await page.getByLabel("Email each submission to").fill("owner@example.com\nnot-an-address");
        await page.getByLabel("Subject", { exact: true }).fill(
          "New lead for {form} from {field:name}",
        );
        await page.getByLabel("Reply-to field").fill("email");
        await page.getByRole("button", { name: "Save form" }).click();
        await page.getByText("Notification emails, address 2: is not an email address").waitFor();
        // The refused post is shown again as typed.
        assert.match(
          await page.getByLabel("Email each submission to").inputValue(),
          /not-an-address/,
        );
        await assertNoAxeViolations(page, "edit form, refused notifications");
        await page.locator(`[data-island="FieldBuilder"][data-hydrated]`).waitFor();
        await page.getByLabel("Email each submission to").fill("owner@example.com");
        await page.getByRole("button", { name: "Save form" }).click();
        await page.waitForURL(/notice=form_saved/);
        const saved = await getForm(env.deps, form.id);
        assert.deepEqual(saved?.notifications?.emails, ["owner@example.com"]);
        assert.equal(saved?.notifications?.reply_to_field, "email");
        assert.equal(saved?.notifications?.subject, "New lead for {form} from {field:name}");
      });

      let webhookId = "";
      await t.step("a webhook is created and its secret shown once", async () => {
        await page.goto(`${base}/admin/webhooks`);
        await assertNoAxeViolations(page, "webhooks, empty");
        await page.getByLabel("Endpoint URL").fill(hookUrl);
        await page.getByRole("button", { name: "Add endpoint" }).click();
        await page.waitForURL(/\/admin\/webhooks\?secret=/);
        assert.match((await page.locator("#new-secret").textContent()) ?? "", /^whsec_/);
        await assertNoAxeViolations(page, "webhooks, secret shown");
        await page.reload();
        assert.equal(await page.locator("#new-secret").count(), 0);
        await page.getByText("A signing secret is shown only once").waitFor();
        const hooks = await listWebhooks(env.deps, ws.id);
        assert.equal(hooks.length, 1);
        webhookId = hooks[0].id;
      });

      await t.step("a submission shows in the Outbox and the delivery log", async () => {
        const res = await env.request(`/api/v1/submit/p/${form.id}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
          body: JSON.stringify({ data: { name: "Ada <script>", email: "ada@example.com" } }),
        });
        assert.equal(res.status, 201);
        await waitFor("the owner mail", async () => (await listOutbox(env.deps, ws.id)).length > 0);
        await waitFor("the webhook", () => got.length > 0);
        await page.goto(`${base}/admin/outbox`);
        await page.getByText("New lead for Contact from Ada <script>").waitFor();
        assert.match(await page.locator("main").innerText(), /to owner@example\.com/);
        await assertNoAxeViolations(page, "outbox");

        await page.goto(`${base}/admin/webhooks`);
        await page.getByRole("link", { name: hookUrl }).click();
        await page.waitForURL(`${base}/admin/webhooks/${webhookId}`);
        const events = page.locator("article.delivery-event");
        await waitFor("one logged delivery", async () => {
          await page.reload();
          return (await events.count()) === 1;
        });
        const card = await events.first().innerText();
        assert.match(card, /submission\.created/);
        assert.match(card, /delivered/);
        const rows = events.first().getByRole("table", { name: /^Attempts of msg_/ })
          .locator("tbody tr");
        assert.equal(await rows.count(), 1);
        assert.equal(
          (await rows.first().locator("td").nth(1).innerText()).trim(),
          "1",
          "the first attempt",
        );
        // The response is shown as text, never as markup.
        assert.match(card, /thanks <b>receiver<\/b>/);
        await assertNoAxeViolations(page, "delivery log");
      });

      await t.step("resend and test event reach the receiver and the log", async () => {
        const firstId = got[0].id;
        await page.getByRole("button", { name: "Resend" }).click();
        await page.waitForURL(/notice=webhook_resent/);
        await waitFor("the resent event", () => got.length >= 2);
        assert.equal(got[1].id, firstId, "a resend keeps the webhook-id");
        await page.getByRole("button", { name: "Send test event" }).click();
        await page.waitForURL(/notice=webhook_test_sent/);
        await waitFor("the test event", () => got.some((g) => g.type === "webhook.test"));
        // The resend joins its event's card; the test event is a card of its own, newest first.
        const events = page.locator("article.delivery-event");
        const rows = page.locator("article.delivery-event tbody tr");
        await waitFor("three logged deliveries", async () => {
          await page.reload();
          return (await rows.count()) === 3;
        });
        assert.equal(await events.count(), 2);
        assert.match(await events.first().innerText(), /webhook\.test/);
        assert.equal(await events.nth(1).locator("tbody tr").count(), 2);
        await assertNoAxeViolations(page, "delivery log after resend and test");
      });

      await t.step("a disabled endpoint puts a banner on every admin page", async () => {
        await mutateWebhook(env.deps, ws.id, webhookId, (w) => ({
          ...w,
          enabled: false,
          disabled_reason: "The endpoint answered 410 Gone.",
        }));
        await page.goto(`${base}/admin/forms`);
        await page.getByText("A webhook endpoint was disabled after failing.").waitFor();
        await assertNoAxeViolations(page, "forms with the banner");
        await page.goto(`${base}/admin/webhooks`);
        await page.getByRole("button", { name: "Enable" }).click();
        await page.waitForURL(/notice=webhook_enabled/);
        assert.equal(await page.getByText("was disabled after failing").count(), 0);
      });
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
      await server.shutdown();
      await rx.shutdown();
      env.close();
    }
  },
});
