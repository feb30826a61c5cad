import assert from "node:assert/strict";
import { SMTPServer } from "smtp-server";
import { type ParsedMail, simpleParser } from "mailparser";
import { listEmailLog, listOutbox } from "@/lib/notify/outbox.ts";
import { notifySubmission } from "@/lib/notify/mod.ts";
import type { FormDefinition } from "@/lib/schemas.ts";
import { makeForm, makeWorkspace, testEnv } from "../../helpers.ts";
import { runJobs, submissionOf, waitFor } from "./_support.ts";

/** A real SMTP server on 127.0.0.1: `reply(n)` decides the n-th DATA (0 = accept, else a code). */
async function smtp(reply: (n: number) => number = () => 0) {
  const mails: ParsedMail[] = [];
  let n = 0;
  const server = new SMTPServer({
    authOptional: true,
    secure: false,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, cb) {
      const code = reply(++n);
      simpleParser(stream).then((m) => {
        if (code) {
          const err = Object.assign(new Error(`refused ${code}`), { responseCode: code });
          return cb(err);
        }
        mails.push(m);
        cb();
      }, cb);
    },
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.server.address() as { port: number }).port;
  return {
    mails,
    calls: () => n,
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

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
    const to = (m: ParsedMail) =>
      [m.to].flat().flatMap((a) => a?.value ?? []).map((v) => v.address).sort();
    assert.deepEqual(to(owner), ["owner@example.com", "second@example.com"]);
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
    assert.deepEqual(to(auto), ["eve@example.com"]);
    assert.equal(auto.text?.trim(), "We got it.");

    // A second submission from the same address within the hour: owner mail, no autoresponse.
    const again = submissionOf(form, { name: "Eve", email: "EVE@example.com", message: "hi" });
    await notifySubmission(env.deps, { type: "submission.created", form, submission: again });
    await waitFor("third mail", () => mail.mails.length === 3);
    await waitFor("log", async () => (await listEmailLog(env.deps, ws.id)).length === 3);
    assert.equal(mail.mails[2].subject, `New to Contact <b>Us</b> from Eve #${again.number}`);
    const log = await listEmailLog(env.deps, ws.id);
    assert.ok(log.every((e) => e.result === "accepted"));
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
