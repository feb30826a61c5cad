import assert from "node:assert/strict";
import { runCli } from "@/cli.ts";
import { listAudit } from "@/lib/privacy/audit.ts";
import { AppError } from "@/lib/errors.ts";
import { createForm, updateForm } from "@/lib/forms/forms.ts";
import { makeWorkspace, testEnv } from "../../helpers.ts";

const fields = [{ name: "name", type: "text" }, { name: "email", type: "email" }];

Deno.test("form notifications: validated, defaulted, stored and updated", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const bad = [
      { emails: Array.from({ length: 11 }, (_, i) => `o${i}@example.com`) },
      { emails: ["not an address"] },
      { subject: "Hi\r\nBcc: x@example.com" },
      { reply_to_field: "name" },
      { autoresponder: { enabled: true, email_field: "missing" } },
      { unknown: true },
    ];
    for (const notifications of bad) {
      await assert.rejects(
        () => createForm(env.deps, ws.id, { name: "F", fields, notifications }),
        (e) => e instanceof AppError && e.status === 400,
        JSON.stringify(notifications),
      );
    }
    const form = await createForm(env.deps, ws.id, {
      name: "F",
      fields,
      notifications: { emails: ["o@example.com"], reply_to_field: "email" },
    });
    assert.deepEqual(form.notifications, {
      emails: ["o@example.com"],
      subject: "New submission to {form}",
      reply_to_field: "email",
      notify_suspicious: true,
      notify_spam: false,
    });
    const updated = await updateForm(env.deps, form.id, { name: "F", fields });
    assert.equal(updated.notifications, null);
  } finally {
    env.close();
  }
});

Deno.test("form notifications: a change through the CLI is audited, an unchanged update is not", async () => {
  const env = await testEnv();
  const dir = await Deno.makeTempDir();
  try {
    const ws = await makeWorkspace(env.deps);
    const file = `${dir}/form.json`;
    const write = (notifications: unknown) =>
      Deno.writeTextFile(file, JSON.stringify({ name: "F", fields, notifications }));
    await write({ emails: ["o@example.com"] });
    const form = await runCli(env.deps, ["form", "create", "--workspace", ws.id, "--file", file])
      .then((f) => f as { public_id: string });
    const update = () =>
      runCli(env.deps, ["form", "update", "--form", form.public_id, "--file", file]);
    await update();
    await write({ emails: ["o@example.com"], notify_spam: true, subject: "Hi {form}" });
    await update();
    await update();
    await write(undefined);
    await update();
    const { events } = await listAudit(env.deps, ws.id, {
      page: 1,
      limit: 10,
      action: "form.notifications_changed",
    });
    assert.deepEqual(events.map((e) => [e.actor, e.details]).reverse(), [
      ["cli", { form: form.public_id, changed: ["subject", "notify_spam"], notify_spam: true }],
      ["cli", {
        form: form.public_id,
        changed: ["emails", "subject", "notify_spam"],
        emails_added: [],
        emails_removed: ["o…@example.com"],
        notify_spam: false,
      }],
    ]);
  } finally {
    env.close();
    await Deno.remove(dir, { recursive: true });
  }
});
