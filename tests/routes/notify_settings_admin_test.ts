/**
 * The form editor's notification settings: each template input lists its placeholders, a
 * change is audited `form.notifications_changed` (actor, address, what changed, owner
 * addresses masked), a save that leaves them alone is not; the Outbox shows suppressed
 * autoresponses without SMTP.
 */
import assert from "node:assert/strict";
import { notifySubmission } from "@/lib/notify/mod.ts";
import { listEmailLog } from "@/lib/notify/outbox.ts";
import { listAudit } from "@/lib/privacy/audit.ts";
import { getForm } from "@/lib/forms/forms.ts";
import { page, post, setup, signIn } from "@/tests/admin_support.ts";
import { testEnv } from "@/tests/helpers.ts";
import { runJobs, submissionOf, waitFor } from "@/tests/lib/notify/_support.ts";

/** The text of the element with `id` (up to its closing tag), tags removed. */
function helpText(html: string, id: string): string {
  const m = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</p>`).exec(html);
  return (m?.[1] ?? "").replace(/<[^>]+>/g, "").replace(/\s+/g, " ");
}

Deno.test("notification settings editor - placeholders named, changes audited, suppressed replies shown", async (t) => {
  const env = await testEnv();
  const jobs = runJobs(env.deps);
  try {
    const { ws, form } = await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const edit = `/admin/forms/${form.id}/edit`;
    const { html, csrf } = await page(env, cookie, edit);
    const fieldsJson = JSON.stringify(form.fields);
    const base = {
      _csrf: csrf,
      name: form.name,
      fields_json: fieldsJson,
      honeypot: "_gotcha",
      accepting: "on",
      notify_section: "1",
    };
    const settings = {
      notify_subject: "New: {form}",
      notify_suspicious: "on",
      auto_enabled: "on",
      auto_email_field: "email",
      auto_subject: "Thanks {field:name}",
      auto_text: "Hi {field:name}",
    };
    const changes = () =>
      listAudit(env.deps, ws.id, { page: 1, limit: 50, action: "form.notifications_changed" });

    await t.step("subject, reply subject and reply text each list the placeholders", () => {
      for (const id of ["notify-subject-help", "auto-subject-help", "auto-text-help"]) {
        const text = helpText(html, id);
        for (const p of ["{form}", "{field:NAME}", "{number}"]) {
          assert.ok(text.includes(p), `${id} names ${p}: ${text}`);
        }
      }
      assert.match(helpText(html, "auto-limits-help"), /20 per form and 100 per workspace/);
    });

    await t.step("a change is audited with actor, address and what changed", async () => {
      const res = await env.request(edit, {
        method: "POST",
        ip: "198.51.100.23",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie,
          origin: "http://localhost",
          "sec-fetch-site": "same-origin",
        },
        body: new URLSearchParams({
          ...base,
          ...settings,
          notify_emails: "Owner@Example.com\nsales@example.org",
        }).toString(),
      });
      assert.equal(res.status, 303, await res.text());
      const { events } = await changes();
      assert.equal(events.length, 1);
      const [ev] = events;
      assert.equal(ev.actor, "user:owner@example.com");
      assert.equal(ev.ip, "198.51.100.0");
      assert.deepEqual(ev.details, {
        form: form.id,
        changed: [
          "emails",
          "subject",
          "autoresponder.enabled",
          "autoresponder.email_field",
          "autoresponder.subject",
          "autoresponder.text",
        ],
        emails_added: ["o…@example.com", "s…@example.org"],
        emails_removed: [],
        "autoresponder.enabled": true,
        "autoresponder.email_field": "email",
      });
      const log = (await page(env, cookie, "/admin/audit?action=form.notifications_changed")).html;
      assert.match(log, /Form notifications changed/);
      assert.match(log, /added o…@example.com, s…@example.org/);
      assert.doesNotMatch(log, /Owner@Example\.com|sales@example\.org/);
    });

    await t.step("a save that leaves them as they are is not audited", async () => {
      const res = await post(env, cookie, edit, {
        ...base,
        name: "Contact us",
        ...settings,
        notify_emails: "sales@example.org\nowner@example.com",
      });
      assert.equal(res.status, 303);
      assert.equal((await getForm(env.deps, form.id))?.name, "Contact us");
      assert.equal((await changes()).events.length, 1);
    });

    await t.step("without SMTP the Outbox lists a suppressed reply and why", async () => {
      const saved = (await getForm(env.deps, form.id))!;
      for (let i = 0; i < 2; i++) {
        const submission = submissionOf(saved, { name: "Ann", email: "ann@example.com" });
        await notifySubmission(env.deps, { type: "submission.created", form: saved, submission });
      }
      await waitFor(
        "a suppressed reply",
        async () => (await listEmailLog(env.deps, ws.id)).some((e) => e.result === "suppressed"),
      );
      const outbox = (await page(env, cookie, "/admin/outbox")).html;
      assert.match(outbox, /Held back/);
      assert.match(outbox, /suppressed/);
      assert.match(outbox, /one reply per address an hour/);
    });
  } finally {
    env.close();
    await jobs;
  }
});
