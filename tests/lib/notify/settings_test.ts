import assert from "node:assert/strict";
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
