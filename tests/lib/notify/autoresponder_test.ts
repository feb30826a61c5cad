/**
 * The autoresponder's limits (CONTRACT "Trust rules"): one reply per normalised address per
 * form per hour, 20 per form and 100 per workspace an hour, none for spam or suspicious
 * submissions; suppressed replies are in the email log. Real SMTP where mail is sent, the
 * KV outbox where no SMTP is set.
 * @module
 */
import assert from "node:assert/strict";
import type { Deps } from "@/lib/deps.ts";
import { type EmailLogEntry, listEmailLog, listOutbox } from "@/lib/notify/outbox.ts";
import { notifySubmission } from "@/lib/notify/mod.ts";
import type { Form, FormDefinition, Submission } from "@/lib/schemas.ts";
import { makeForm, makeWorkspace, testEnv } from "../../helpers.ts";
import { recipients, runJobs, smtp, submissionOf, waitFor } from "./_support.ts";

/** A form that only autoresponds (no owner emails). */
const AUTO: FormDefinition = {
  name: "Contact",
  fields: [{ name: "name", type: "text" }, { name: "email", type: "email" }],
  notifications: {
    emails: [],
    autoresponder: {
      enabled: true,
      email_field: "email",
      subject: "Thanks {field:name}",
      text: "We got it.",
    },
  },
};

async function notify(
  deps: Deps,
  form: Form,
  fields: Record<string, unknown>,
  status: Submission["status"] = "completed",
): Promise<void> {
  const submission = submissionOf(form, fields, status);
  await notifySubmission(deps, { type: "submission.created", form, submission });
}

/** Waits until the workspace's email log holds `n` entries; returns them, newest first. */
async function logOf(deps: Deps, workspaceId: string, n: number): Promise<EmailLogEntry[]> {
  await waitFor(
    `${n} email log entries`,
    async () => (await listEmailLog(deps, workspaceId, 200)).length >= n,
  );
  return await listEmailLog(deps, workspaceId, 200);
}

function results(log: EmailLogEntry[], form?: Form): string[] {
  return log.filter((e) => !form || e.form_id === form.id).map((e) =>
    e.result === "suppressed" ? `suppressed: ${e.detail}` : e.result
  ).sort();
}

Deno.test("autoresponder: +tag and case variants of an address get one reply per form an hour (real SMTP)", async () => {
  const mail = await smtp();
  const env = await testEnv({ SMTP_URL: mail.url });
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const a = await makeForm(env.deps, ws, { ...AUTO, name: "Form A" });
    const b = await makeForm(env.deps, ws, { ...AUTO, name: "Form B" });
    for (let i = 1; i <= 30; i++) {
      await notify(env.deps, a, {
        name: `Claim a prize at evil.example ${i}`,
        email: ` Target+${i}@Victim.Example `,
      });
    }
    await notify(env.deps, b, { name: "Tim", email: "target@victim.example" });
    const log = await logOf(env.deps, ws.id, 31);
    assert.equal(mail.mails.length, 2, "one reply per form");
    assert.deepEqual(results(log, b), ["accepted"]);
    assert.deepEqual(
      results(log, a),
      ["accepted", ...Array(29).fill("suppressed: one reply per address an hour")],
    );
    const toA = log.find((e) => e.form_id === a.id && e.result === "accepted")!;
    const typed = toA.to[0].toLowerCase();
    const sent = mail.mails.find((m) => recipients(m)[0].toLowerCase() === typed);
    assert.ok(sent, "the reply went to the address as typed, +tag and all");
    assert.match(toA.to[0], /^Target\+\d+@Victim\.Example$/);
  } finally {
    env.close();
    await jobs;
    await mail.close();
  }
});

Deno.test("autoresponder: at most 20 per form and 100 per workspace an hour (outbox)", async (t) => {
  const env = await testEnv();
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const other = await makeWorkspace(env.deps);
    const forms: Form[] = [];
    for (let i = 0; i < 6; i++) forms.push(await makeForm(env.deps, ws, AUTO));
    const send = async (form: Form, from: number, n: number) => {
      for (let i = from; i < from + n; i++) {
        await notify(env.deps, form, { name: "V", email: `v${i}@example.com` });
      }
    };

    await t.step("25 addresses on one form: 20 replies", async () => {
      await send(forms[0], 0, 25);
      const log = await logOf(env.deps, ws.id, 25);
      assert.deepEqual(results(log), [
        ...Array(20).fill("outbox"),
        ...Array(5).fill("suppressed: the form's limit of 20 replies an hour"),
      ]);
      assert.equal((await listOutbox(env.deps, ws.id, 200)).length, 20);
    });

    await t.step("four more forms reach 100 for the workspace; a sixth is refused", async () => {
      for (const form of forms.slice(1, 5)) await send(form, 100, 20);
      assert.equal(results(await logOf(env.deps, ws.id, 105)).length, 105);
      await send(forms[5], 200, 3);
      const log = await logOf(env.deps, ws.id, 108);
      assert.deepEqual(
        results(log, forms[5]),
        Array(3).fill("suppressed: the workspace's limit of 100 replies an hour"),
      );
      assert.equal((await listOutbox(env.deps, ws.id, 200)).length, 100);
    });

    await t.step("another workspace has its own limit", async () => {
      const form = await makeForm(env.deps, other, AUTO);
      await notify(env.deps, form, { name: "V", email: "v0@example.com" });
      assert.deepEqual(results(await logOf(env.deps, other.id, 1)), ["outbox"]);
    });
  } finally {
    env.close();
    await jobs;
  }
});

Deno.test("autoresponder: the hour is counted on the service's clock, not KV's lazy expiry", async (t) => {
  const clock = { t: Date.now() };
  const env = await testEnv({}, { now: () => clock.t });
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, AUTO);
    const start = clock.t;

    await t.step("the same address: again after the hour, not before", async () => {
      const fields = { name: "Ann", email: "ann@example.com" };
      await notify(env.deps, form, fields);
      await logOf(env.deps, ws.id, 1);
      clock.t = start + 59 * 60_000;
      await notify(env.deps, form, fields);
      await logOf(env.deps, ws.id, 2);
      clock.t = start + 60 * 60_000 + 1;
      await notify(env.deps, form, fields);
      const log = await logOf(env.deps, ws.id, 3);
      assert.deepEqual(
        log.map((e) => e.result),
        ["outbox", "suppressed", "outbox"],
      );
    });

    await t.step("the form's 20: one more once the first of them is an hour old", async () => {
      const first = clock.t;
      for (let i = 0; i < 19; i++) {
        clock.t = first + i * 60_000;
        await notify(env.deps, form, { name: "V", email: `v${i}@example.com` });
      }
      await logOf(env.deps, ws.id, 22);
      clock.t = first + 30 * 60_000;
      await notify(env.deps, form, { name: "V", email: "late1@example.com" });
      assert.equal((await logOf(env.deps, ws.id, 23))[0].result, "suppressed");
      // The 20 in the window: "ann" at `first - 0` (the step before) and 19 new ones.
      clock.t = first + 60 * 60_000 + 1;
      await notify(env.deps, form, { name: "V", email: "late2@example.com" });
      assert.equal((await logOf(env.deps, ws.id, 24))[0].result, "outbox");
    });
  } finally {
    env.close();
    await jobs;
  }
});

Deno.test("autoresponder: never for spam or suspicious submissions, which use up nothing", async () => {
  const env = await testEnv();
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, {
      ...AUTO,
      notifications: {
        ...AUTO.notifications,
        emails: ["owner@example.com"],
        notify_spam: true,
        notify_suspicious: true,
      },
    });
    const fields = { name: "Sue", email: "sue@example.com" };
    await notify(env.deps, form, fields, "spam");
    await notify(env.deps, form, fields, "suspicious");
    await logOf(env.deps, ws.id, 2);
    await notify(env.deps, form, fields);
    const log = await logOf(env.deps, ws.id, 4);
    assert.deepEqual(log.map((e) => `${e.kind} ${e.result}`).sort(), [
      "autoresponder outbox",
      "owner outbox",
      "owner outbox",
      "owner outbox",
    ]);
    const replies = (await listOutbox(env.deps, ws.id)).filter((m) =>
      m.to[0] === "sue@example.com"
    );
    assert.equal(replies.length, 1);
  } finally {
    env.close();
    await jobs;
  }
});
