/**
 * Erasing a person also removes what notifications kept about them: outbox mails, email
 * log entries, stored events and webhook delivery log entries, so a resend of such a
 * delivery is 404; the admin's confirmation lists what goes. And notification copies are
 * kept 30 days, whatever KV's lazy expiry does.
 */
import assert from "node:assert/strict";
import { updateForm } from "@/lib/forms/forms.ts";
import { keys } from "@/lib/kv/keys.ts";
import { listDeliveries } from "@/lib/notify/deliver.ts";
import { resendDelivery } from "@/lib/notify/manual.ts";
import { notifySubmission } from "@/lib/notify/mod.ts";
import { listEmailLog, listOutbox, logEmail, putOutbox } from "@/lib/notify/outbox.ts";
import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import { requirePrivacyJob } from "@/lib/privacy/erase.ts";
import { setSubmissionStatus } from "@/lib/submissions/status.ts";
import { page, post, setup, signIn } from "@/tests/admin_support.ts";
import {
  CONTACT_FORM,
  makeForm,
  makeKey,
  makeWorkspace,
  postJson,
  testEnv,
} from "@/tests/helpers.ts";
import { receiver, runJobs, submissionOf, waitFor } from "@/tests/lib/notify/_support.ts";

const ALL_EVENTS = ["submission.created", "submission.status_changed", "submission.deleted"];

Deno.test("erase - a person's outbox mails, email log entries, events and deliveries go; resend is 404", async () => {
  const env = await testEnv({ WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_DELAYS: "30" });
  const rx = receiver();
  const jobs = runJobs(env.deps);
  try {
    const { ws, form } = await setup(env);
    await updateForm(env.deps, form.id, {
      ...CONTACT_FORM,
      notifications: { emails: ["owner@example.com"], subject: "New from {field:name}" },
    });
    const hook = await createWebhook(env.deps, ws.id, { url: rx.url, events: ALL_EVENTS }, {
      actor: "cli",
    });
    const key = await makeKey(env.deps, ws, { scopes: ["submit", "read", "admin"] });
    const auth = { authorization: `Bearer ${key}` };
    const submit = async (name: string, email: string) => {
      const res = await postJson(
        env,
        `/api/v1/submit/p/${form.id}`,
        { data: { name, email } },
        auth,
      );
      assert.equal(res.status, 201);
      return (await res.json()).submission_id as string;
    };
    const ada = await submit("Ada Lovelace", "ada@example.com");
    const grace = await submit("Grace Hopper", "grace@example.com");
    await waitFor("both owner mails", async () => (await listOutbox(env.deps, ws.id)).length === 2);
    await waitFor("both deliveries", () => rx.got.length === 2);
    // A status change: an event with an id of its own, about Ada.
    await setSubmissionStatus(env.deps, form.id, ada, "spam");
    await waitFor(
      "three deliveries logged",
      async () =>
        (await listDeliveries(env.deps, hook.id)).filter((d) => d.outcome === "delivered")
          .length === 3,
    );
    const before = await listDeliveries(env.deps, hook.id);
    const adaDelivery = before.find((d) => d.event_id === `msg_created_${ada}`)!;
    const graceDelivery = before.find((d) => d.event_id === `msg_created_${grace}`)!;
    const adaEvents = new Set(
      before.filter((d) => d.event_id !== graceDelivery.event_id).map((d) => d.event_id),
    );
    assert.equal(adaEvents.size, 2);

    const cookie = await signIn(env, "owner@example.com");
    const { csrf } = await page(env, cookie, "/admin/privacy");
    const preview = await post(env, cookie, "/admin/privacy", {
      _csrf: csrf,
      action: "preview",
      email: "ada@example.com",
    });
    const html = await preview.text();
    assert.match(html, /deletes 1 submission/);
    const listed = /<ul id="preview-copies">(.*?)<\/ul>/.exec(html)?.[1] ?? html;
    assert.deepEqual([...listed.matchAll(/<li[^>]*>([^<]+)<\/li>/g)].map((m) => m[1]), [
      "1 mail in the Outbox",
      "1 email log entry",
      "2 stored webhook and email events",
      "2 webhook delivery log entries",
    ]);

    const started = await post(env, cookie, "/admin/privacy", {
      _csrf: csrf,
      action: "erase",
      email: "ada@example.com",
    });
    const jobId = /job=(job_[0-9a-z]+)/.exec(started.headers.get("location") ?? "")![1];
    await waitFor(
      "the erase job",
      async () =>
        (await requirePrivacyJob(env.deps, ws.id, ["live", "test"], jobId)).status === "done",
    );
    const job = await requirePrivacyJob(env.deps, ws.id, ["live", "test"], jobId);
    assert.deepEqual([job.deleted, job.copies], [1, 6]);
    assert.match(
      (await page(env, cookie, `/admin/privacy?job=${jobId}`)).html,
      /6 notification copies removed/,
    );

    const mails = await listOutbox(env.deps, ws.id);
    assert.deepEqual(mails.map((m) => m.subject), ["New from Grace Hopper"]);
    const log = await listEmailLog(env.deps, ws.id);
    assert.deepEqual(log.map((e) => e.subject), ["New from Grace Hopper"]);
    const after = await listDeliveries(env.deps, hook.id);
    assert.deepEqual(after.map((d) => d.event_id), [graceDelivery.event_id]);
    for (const id of adaEvents) {
      assert.equal(
        (await env.deps.kv.list({ prefix: keys.notifyEvent(id) }).next()).done,
        true,
        id,
      );
    }
    const outbox = await page(env, cookie, "/admin/outbox");
    assert.doesNotMatch(outbox.html, /Ada|ada@example/);
    assert.match(outbox.html, /Grace Hopper/);

    const resend = (id: string) =>
      postJson(env, `/api/v1/server/webhooks/${hook.id}/deliveries/${id}/resend`, {}, auth);
    const gone = await resend(adaDelivery.id);
    assert.equal(gone.status, 404);
    assert.equal((await gone.json()).code, "not_found");
    const kept = await resend(graceDelivery.id);
    assert.equal(kept.status, 202);
    await kept.body?.cancel();
    await waitFor("Grace's resend", () => rx.got.length === 4);
    assert.equal(JSON.parse(rx.got[3].body).data.submission.id, grace);
  } finally {
    env.close();
    await jobs;
    await rx.close();
  }
});

Deno.test("erase - outbox mails, email log and delivery log entries are kept 30 days", async () => {
  let clock = Date.parse("2030-01-01T00:00:00Z");
  const env = await testEnv({ WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_DELAYS: "30" }, {
    now: () => clock,
  });
  const rx = receiver();
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    const hook = await createWebhook(env.deps, ws.id, { url: rx.url }, { actor: "cli" });
    const mail = {
      form_id: form.id,
      from: "a@x.io",
      to: ["o@x.io"],
      subject: "s",
      text: "t",
      html: "",
    };
    await putOutbox(env.deps, ws.id, mail);
    await logEmail(env.deps, ws.id, {
      form_id: form.id,
      event_id: "msg_x",
      kind: "owner",
      to: ["o@x.io"],
      subject: "s",
      attempt: 0,
      result: "outbox",
    });
    await notifySubmission(env.deps, {
      type: "submission.created",
      form,
      submission: submissionOf(form, { name: "n", email: "n@example.com" }),
    });
    await waitFor(
      "the delivery logged",
      async () => (await listDeliveries(env.deps, hook.id)).length === 1,
    );
    const [delivery] = await listDeliveries(env.deps, hook.id);

    clock += 29 * 86_400_000;
    assert.equal((await listOutbox(env.deps, ws.id)).length, 1);
    assert.equal((await listEmailLog(env.deps, ws.id)).length, 1);
    assert.equal((await listDeliveries(env.deps, hook.id)).length, 1);
    clock += 2 * 86_400_000;
    assert.deepEqual(await listOutbox(env.deps, ws.id), []);
    assert.deepEqual(await listEmailLog(env.deps, ws.id), []);
    assert.deepEqual(await listDeliveries(env.deps, hook.id), []);
    await assert.rejects(() => resendDelivery(env.deps, ws.id, hook.id, delivery.id), /not found/i);
  } finally {
    env.close();
    await jobs;
    await rx.close();
  }
});
