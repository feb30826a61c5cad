import assert from "node:assert/strict";
import { heard, whoHears } from "@/lib/notify/hearers.ts";
import { notificationsSchema } from "@/lib/notify/settings.ts";
import type { Listening } from "@/lib/notify/webhooks.ts";

const notifications = notificationsSchema.parse({
  emails: ["owner@example.com"],
  autoresponder: { enabled: true, email_field: "email" },
});
const form = { id: "frm_a", notifications };
const quiet = { id: "frm_a", notifications: null };
const sub = (
  status: "completed" | "suspicious" | "spam",
  mode: "live" | "test" = "live",
) => ({ status, mode, fields: { email: "Sender@Example.com" } });

Deno.test("who hears - mail for live submissions of the statuses the settings take", () => {
  assert.deepEqual(whoHears(form, "submission.created", sub("completed"), []), {
    ownerMail: true,
    autoresponse: true,
    webhooks: [],
  });
  // Suspicious is mailed by default, not answered; spam neither unless notify_spam.
  assert.deepEqual(whoHears(form, "submission.created", sub("suspicious"), []), {
    ownerMail: true,
    autoresponse: false,
    webhooks: [],
  });
  assert.equal(heard(whoHears(form, "submission.created", sub("spam"), [])), false);
  const spamToo = { ...form, notifications: { ...notifications, notify_spam: true } };
  assert.equal(whoHears(spamToo, "submission.created", sub("spam"), []).ownerMail, true);
  // Test-mode submissions and other events are never mailed.
  assert.equal(heard(whoHears(form, "submission.created", sub("completed", "test"), [])), false);
  assert.equal(heard(whoHears(form, "submission.deleted", sub("completed"), [])), false);
  assert.equal(heard(whoHears(quiet, "submission.created", sub("completed"), [])), false);
});

Deno.test("who hears - webhooks of the submission's mode subscribed to the event and form", () => {
  const listening: [string, Listening][] = [
    ["wh_all", { mode: "live", events: ["submission.created"], forms: [] }],
    ["wh_this", { mode: "live", events: ["submission.created"], forms: ["frm_a"] }],
    ["wh_other", { mode: "live", events: ["submission.created"], forms: ["frm_b"] }],
    ["wh_test", { mode: "test", events: ["submission.created"], forms: [] }],
    ["wh_deleted", { mode: "live", events: ["submission.deleted"], forms: [] }],
    // A disabled endpoint listens to nothing.
    ["wh_off", { mode: "live", events: [], forms: [] }],
  ];
  assert.deepEqual(
    whoHears(quiet, "submission.created", sub("spam"), listening).webhooks,
    ["wh_all", "wh_this"],
  );
  assert.deepEqual(
    whoHears(quiet, "submission.created", sub("completed", "test"), listening).webhooks,
    ["wh_test"],
  );
  assert.deepEqual(
    whoHears(quiet, "submission.deleted", sub("completed"), listening).webhooks,
    ["wh_deleted"],
  );
});
