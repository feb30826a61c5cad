/**
 * The notify admin's server side: account mail through the notify mailer (a job, so the
 * request never waits on SMTP; the job keeps it in the account outbox without), webhook changes
 * refused in a suspended workspace except those that only take access away, a refused
 * endpoint URL shown again as typed, and every webhook change audited.
 */
import assert from "node:assert/strict";
import { dispatch } from "@/lib/jobs/mod.ts";
import { ACCOUNT_OUTBOX, listEmailLog } from "@/lib/notify/outbox.ts";
import { listAccountMail } from "@/lib/admin/mail.ts";
import { listWebhooks } from "@/lib/notify/webhooks.ts";
import { listAudit } from "@/lib/privacy/audit.ts";
import { updateWorkspace } from "@/lib/workspaces/workspaces.ts";
import { FORM_TYPE, page, post, setup, signIn } from "@/tests/admin_support.ts";
import { testEnv } from "@/tests/helpers.ts";
import { runJobs, smtp, waitFor } from "@/tests/lib/notify/_support.ts";

Deno.test("account mail goes out by SMTP from a job, never inside the request", async () => {
  const server = await smtp();
  const mails = server.mails;
  const env = await testEnv({ SMTP_URL: server.url });
  try {
    await setup(env);
    const res = await env.request("/admin/reset", {
      method: "POST",
      headers: FORM_TYPE,
      body: new URLSearchParams({ email: "owner@example.com" }).toString(),
    });
    assert.equal(res.status, 303);
    // No runner yet: the request only enqueued the mail.
    assert.equal(mails.length, 0);
    assert.equal((await listAccountMail(env.deps)).length, 0, "nothing in the outbox with SMTP");
    env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
    await waitFor("the reset mail over SMTP", () => mails.length === 1);
    assert.equal(mails[0].subject, "Choose a new Formwell password");
    assert.match(mails[0].text ?? "", /\/admin\/reset\/[0-9A-Za-z_-]+/);
    await waitFor(
      "the account email log",
      async () =>
        (await listEmailLog(env.deps, ACCOUNT_OUTBOX)).some((e) => e.result === "accepted"),
    );
  } finally {
    env.close();
    await server.close();
  }
});

Deno.test("account mail without SMTP shows in the Outbox of instance owners", async () => {
  const env = await testEnv();
  const jobs = runJobs(env.deps);
  try {
    await setup(env);
    await env.request("/admin/reset", {
      method: "POST",
      headers: FORM_TYPE,
      body: new URLSearchParams({ email: "owner@example.com" }).toString(),
    });
    await waitFor(
      "the reset mail in the outbox",
      async () => (await listAccountMail(env.deps, "owner@example.com")).length === 1,
    );
    const cookie = await signIn(env, "owner@example.com");
    const { res, html } = await page(env, cookie, "/admin/outbox");
    assert.equal(res.status, 200);
    assert.match(html, /Account mail \(instance owners only\)/);
    assert.match(html, /Choose a new Formwell password/);
  } finally {
    env.close();
    await jobs;
  }
});

Deno.test("webhooks in a suspended workspace: disable and delete only", async () => {
  const env = await testEnv({ WEBHOOK_ALLOW_PRIVATE: "1" });
  try {
    const { ws } = await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const { csrf } = await page(env, cookie, "/admin/webhooks");
    const act = (fields: Record<string, string>) =>
      post(env, cookie, "/admin/webhooks", { _csrf: csrf, ...fields });
    const url = "http://127.0.0.1:9/hook";
    const created = await act({ action: "create", url, events: "submission.created" });
    assert.equal(created.status, 303);
    assert.match(created.headers.get("location") ?? "", /^\/admin\/webhooks\?secret=/);
    const bad = await act({ action: "create", url: "ftp://example.com/x" });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /The webhook was not saved/);
    const [hook] = await listWebhooks(env.deps, ws.id);
    await updateWorkspace(env.deps, ws.id, { suspended: true });
    for (const action of ["create", "rotate", "enable"]) {
      const res = await act({ action, id: hook.id, url });
      assert.equal(res.status, 403, action);
      assert.match(await res.text(), /suspended/, action);
    }
    const test = await post(env, cookie, `/admin/webhooks/${hook.id}`, {
      _csrf: csrf,
      action: "test",
    });
    assert.equal(test.status, 403);
    await test.body?.cancel();
    assert.equal((await act({ action: "disable", id: hook.id })).status, 303);
    assert.equal((await listWebhooks(env.deps, ws.id))[0].enabled, false);
    assert.equal((await act({ action: "delete", id: hook.id })).status, 303);
    assert.equal((await listWebhooks(env.deps, ws.id)).length, 0);
  } finally {
    env.close();
  }
});

Deno.test("webhooks admin: a refused URL keeps what was typed and names WEBHOOK_ALLOW_PRIVATE", async () => {
  const env = await testEnv();
  try {
    const { ws, form } = await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const { csrf } = await page(env, cookie, "/admin/webhooks");
    const url = "https://10.0.0.5:8443/hooks/formwell?team=ops";
    const res = await post(env, cookie, "/admin/webhooks", [
      ["_csrf", csrf],
      ["action", "create"],
      ["url", url],
      ["events", "submission.deleted"],
      ["forms", form.id],
    ]);
    assert.equal(res.status, 400);
    const html = await res.text();
    assert.match(html, /The webhook was not saved: url must point to a public address/);
    assert.match(html, /role="alert"[^>]*>[^<]*WEBHOOK_ALLOW_PRIVATE=1/);
    const input = /<input[^>]*id="hook-url"[^>]*>/.exec(html)?.[0] ?? "";
    assert.match(input, new RegExp(`value="${url.replace(/[?.]/g, "\\$&")}"`), input);
    const ticked = [
      ...html.matchAll(/<input type="checkbox" name="(\w+)" value="([^"]+)" checked/g),
    ]
      .map((m) => `${m[1]}=${m[2]}`);
    assert.deepEqual(ticked, ["events=submission.deleted", `forms=${form.id}`]);
    assert.equal((await listWebhooks(env.deps, ws.id)).length, 0);
  } finally {
    env.close();
  }
});

Deno.test("webhooks admin: every change is audited with the signed-in user, never the secret", async () => {
  const env = await testEnv({ WEBHOOK_ALLOW_PRIVATE: "1" });
  try {
    const { ws } = await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const { csrf } = await page(env, cookie, "/admin/webhooks");
    const act = (path: string, fields: Record<string, string>) =>
      post(env, cookie, path, { _csrf: csrf, ...fields });
    const url = "http://127.0.0.1:9/hook";
    assert.equal(
      (await act("/admin/webhooks", { action: "create", url, events: "submission.created" }))
        .status,
      303,
    );
    const [hook] = await listWebhooks(env.deps, ws.id);
    assert.equal(hook.mode, "live");
    for (const action of ["disable", "enable", "rotate"]) {
      assert.equal((await act("/admin/webhooks", { action, id: hook.id })).status, 303, action);
    }
    assert.equal((await act(`/admin/webhooks/${hook.id}`, { action: "test" })).status, 303);
    assert.equal((await act("/admin/webhooks", { action: "delete", id: hook.id })).status, 303);
    const { events } = await listAudit(env.deps, ws.id, { page: 1, limit: 50 });
    const mine = events.filter((e) => e.action.startsWith("webhook."));
    assert.deepEqual(mine.map((e) => [e.action, e.details.webhook_id]).reverse(), [
      ["webhook.created", hook.id],
      ["webhook.updated", hook.id],
      ["webhook.updated", hook.id],
      ["webhook.secret_rotated", hook.id],
      ["webhook.test_sent", hook.id],
      ["webhook.deleted", hook.id],
    ]);
    for (const e of mine) {
      assert.equal(e.actor, "user:owner@example.com");
      assert.equal(e.ip, "203.0.113.0", "the address, truncated");
      assert.equal(e.details.mode, "live");
    }
    assert.deepEqual(mine.map((e) => e.details.changed).filter(Boolean), [
      { enabled: true },
      { enabled: false },
    ]);
    assert.ok(!JSON.stringify(events).includes("whsec_"));
    const shown = await page(env, cookie, "/admin/audit");
    assert.match(shown.html, /Webhook secret rotated/);
  } finally {
    env.close();
  }
});
