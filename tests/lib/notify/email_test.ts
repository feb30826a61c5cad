import assert from "node:assert/strict";
import { listEmailLog, listOutbox } from "@/lib/notify/outbox.ts";
import { notifySubmission } from "@/lib/notify/mod.ts";
import type { FormDefinition } from "@/lib/schemas.ts";
import { makeForm, makeWorkspace, testEnv } from "../../helpers.ts";
import { recipients, runJobs, smtp, submissionOf, waitFor } from "./_support.ts";

const DEF: FormDefinition = {
  name: "Contact <b>Us</b>",
  fields: [
    { name: "name", label: "Name", type: "text" },
    { name: "email", type: "email" },
    { name: "message", type: "textarea" },
  ],
  notifications: {
    emails: ["owner@example.com", "second@example.com"],
    subject: "New to {form} from {field:name} #{number}",
    reply_to_field: "email",
    autoresponder: {
      enabled: true,
      email_field: "email",
      subject: "Thanks {field:name}",
      text: "We got it.",
    },
  },
};

Deno.test("email: owner mail and autoresponse over real SMTP; hostile values escaped, no header injection", async () => {
  const mail = await smtp();
  const env = await testEnv({ SMTP_URL: mail.url, BASE_URL: "https://forms.example.org" });
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, DEF);
    const hostile = "Eve\r\nBcc: victim@example.com\r\nX-Evil: 1";
    const big = `<script>alert("x")</script> & ` + "y".repeat(100_000);
    const sub = submissionOf(form, { name: hostile, email: "eve@example.com", message: big });
    await notifySubmission(env.deps, { type: "submission.created", form, submission: sub });
    await waitFor("two mails", () => mail.mails.length === 2);
    const owner = mail.mails.find((m) => m.subject?.startsWith("New to"))!;
    const auto = mail.mails.find((m) => m.subject?.startsWith("Thanks"))!;
    assert.ok(owner && auto);
    assert.deepEqual(recipients(owner), ["owner@example.com", "second@example.com"]);
    assert.equal(
      owner.subject,
      `New to Contact <b>Us</b> from Eve Bcc: victim@example.com X-Evil: 1 #${sub.number}`,
    );
    assert.equal(owner.headers.get("x-evil"), undefined);
    assert.equal(owner.bcc, undefined);
    assert.equal(owner.replyTo?.value[0].address, "eve@example.com");
    assert.equal(owner.from?.value[0].address, "no-reply@forms.example.org");
    const html = String(owner.html);
    assert.ok(!html.includes("<script>"), "script escaped");
    assert.ok(
      html.includes(
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; " + "y".repeat(100_000),
      ),
    );
    assert.ok(owner.text?.includes(big), "the 100 KB value arrives intact in the text part");
    const link = `https://forms.example.org/admin/forms/${form.id}/submissions/${sub.id}`;
    assert.ok(owner.text?.includes(link));
    assert.ok(html.includes(`href="${link}"`));
    assert.deepEqual(recipients(auto), ["eve@example.com"]);
    assert.equal(auto.text?.trim(), "We got it.");

    // A second submission from the same address within the hour: owner mail; the
    // autoresponse is held back and logged.
    const again = submissionOf(form, { name: "Eve", email: "EVE@example.com", message: "hi" });
    await notifySubmission(env.deps, { type: "submission.created", form, submission: again });
    await waitFor("third mail", () => mail.mails.length === 3);
    await waitFor("log", async () => (await listEmailLog(env.deps, ws.id)).length === 4);
    assert.equal(mail.mails[2].subject, `New to Contact <b>Us</b> from Eve #${again.number}`);
    const log = await listEmailLog(env.deps, ws.id);
    assert.deepEqual(log.map((e) => `${e.kind} ${e.result}`).sort(), [
      "autoresponder accepted",
      "autoresponder suppressed",
      "owner accepted",
      "owner accepted",
    ]);
  } finally {
    env.close();
    await jobs;
    await mail.close();
  }
});

Deno.test("email: suspicious marked, spam skipped by default; no SMTP goes to the outbox", async () => {
  const env = await testEnv();
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, DEF);
    const fields = { name: "Sam", email: "sam@example.com", message: "m" };
    await notifySubmission(env.deps, {
      type: "submission.created",
      form,
      submission: submissionOf(form, fields, "spam"),
    });
    const s = submissionOf(form, fields, "suspicious");
    await notifySubmission(env.deps, { type: "submission.created", form, submission: s });
    await waitFor("outbox", async () => (await listOutbox(env.deps, ws.id)).length === 1);
    const [m] = await listOutbox(env.deps, ws.id);
    assert.equal(m.subject, `[Suspicious] New to Contact <b>Us</b> from Sam #${s.number}`);
    assert.deepEqual(m.to, ["owner@example.com", "second@example.com"]);
    assert.equal(m.reply_to, "sam@example.com");
    // The log entry is written right after the outbox entry: wait for it too.
    await waitFor("email log", async () => (await listEmailLog(env.deps, ws.id)).length > 0);
    const log = await listEmailLog(env.deps, ws.id);
    assert.deepEqual(log.map((e) => [e.kind, e.result]), [["owner", "outbox"]]);
  } finally {
    env.close();
    await jobs;
  }
});

Deno.test("email: SMTP 4xx retried until accepted, 5xx not retried", async () => {
  const soft = await smtp((n) => (n <= 2 ? 451 : 0));
  const hard = await smtp(() => 550);
  const def = { ...DEF, notifications: { ...DEF.notifications, autoresponder: undefined } };
  for (const [server, expect] of [[soft, "accepted"], [hard, "failed"]] as const) {
    const env = await testEnv({ SMTP_URL: server.url, EMAIL_RETRY_DELAYS: "20,20,20" });
    const jobs = runJobs(env.deps);
    try {
      const ws = await makeWorkspace(env.deps);
      const form = await makeForm(env.deps, ws, def);
      await notifySubmission(env.deps, {
        type: "submission.created",
        form,
        submission: submissionOf(form, { name: "a", email: "a@example.com" }),
      });
      await waitFor(
        expect,
        async () => (await listEmailLog(env.deps, ws.id))[0]?.result === expect,
      );
      const log = await listEmailLog(env.deps, ws.id);
      if (expect === "accepted") {
        assert.deepEqual(log.map((e) => e.result), ["accepted", "retrying", "retrying"]);
        assert.equal(soft.calls(), 3);
        assert.equal(soft.mails.length, 1);
      } else {
        assert.deepEqual(log.map((e) => e.result), ["failed"]);
        assert.match(log[0].detail ?? "", /550/);
        assert.equal(hard.calls(), 1);
      }
    } finally {
      env.close();
      await jobs;
    }
  }
  await soft.close();
  await hard.close();
});

Deno.test("email: the autoresponse's subject and text take {form}, {field:NAME}, {number}; visitor values stay one line and plain", async () => {
  const mail = await smtp();
  const env = await testEnv({ SMTP_URL: mail.url });
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, {
      ...DEF,
      notifications: {
        emails: [],
        autoresponder: {
          enabled: true,
          email_field: "email",
          subject: "Re: {form} #{number}{field:constructor}, {field:name}",
          text: "Hi {field:name},\n\nthanks for writing to {form}.\nYour number: {number}." +
            "\n{field:toString}{field:missing}-",
        },
      },
    });
    const name = "Eve\r\nBcc: victim@example.com\r\n<b>Click</b> " + "z".repeat(5_000);
    const sub = submissionOf(form, { name, email: "eve@example.com" });
    await notifySubmission(env.deps, { type: "submission.created", form, submission: sub });
    await waitFor("the autoresponse", () => mail.mails.length === 1);
    const [auto] = mail.mails;
    assert.equal(auto.headers.get("bcc"), undefined);
    const subject = auto.subject ?? "";
    assert.ok(
      subject.startsWith(`Re: Contact <b>Us</b> #${sub.number}, Eve Bcc: victim@example.com `),
      subject,
    );
    assert.ok(!/[\r\n]/.test(subject) && subject.length <= 300, "one line, capped");
    assert.ok(!subject.includes("function"), "no prototype member fills a placeholder");
    const text = auto.text ?? "";
    const lines = text.trimEnd().split("\n");
    assert.ok(lines[0].startsWith("Hi Eve Bcc: victim@example.com <b>Click</b> zzz"), lines[0]);
    assert.ok(lines[0].length < 1_000, "a visitor value is capped in the text");
    assert.deepEqual(lines.slice(1), [
      "",
      "thanks for writing to Contact <b>Us</b>.",
      `Your number: ${sub.number}.`,
      "-",
    ]);
    const html = String(auto.html);
    assert.ok(html.includes("&lt;b&gt;Click&lt;/b&gt;"), "the HTML part escapes visitor text");
    assert.ok(!html.includes("<b>"));
  } finally {
    env.close();
    await jobs;
    await mail.close();
  }
});

Deno.test("email: notify_spam and notify_suspicious decide the owner mail", async () => {
  const env = await testEnv();
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, {
      ...DEF,
      notifications: { ...DEF.notifications, notify_spam: true, notify_suspicious: false },
    });
    const fields = { name: "Sam", email: "sam@example.com" };
    const notify = (status: "suspicious" | "spam") =>
      notifySubmission(env.deps, {
        type: "submission.created",
        form,
        submission: submissionOf(form, fields, status),
      });
    assert.equal(await notify("suspicious"), null, "nothing is due for a suspicious one");
    assert.notEqual(await notify("spam"), null);
    await waitFor("email log", async () => (await listEmailLog(env.deps, ws.id)).length > 0);
    const subjects = (await listOutbox(env.deps, ws.id)).map((m) => m.subject);
    assert.equal(subjects.length, 1);
    assert.match(subjects[0], /^\[Spam\] New to Contact <b>Us<\/b> from Sam #\d+$/);
  } finally {
    env.close();
    await jobs;
  }
});
