/**
 * The autoresponder's per-form limit holds when two real `main.ts` processes on one KV file
 * (`JOBS=table`) race to send 30 replies through a real SMTP server: 20 go, 10 are logged
 * as suppressed.
 * @module
 */
import assert from "node:assert/strict";
import { listEmailLog } from "@/lib/notify/outbox.ts";
import { notifyEvents } from "@/lib/notify/mod.ts";
import { makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { startServer, within } from "@/tests/processes.ts";
import { smtp, submissionOf } from "./_support.ts";

Deno.test("autoresponder (2 processes): the form's 20 an hour holds when jobs race", async () => {
  const mail = await smtp();
  const dir = await Deno.makeTempDir({ prefix: "formwell-autoresponder-" });
  const kvPath = `${dir}/kv.sqlite`;
  // This process only enqueues; the two servers run the jobs.
  const env = await testEnv({ KV_PATH: kvPath, JOBS: "table", SMTP_URL: mail.url });
  const servers = await Promise.all([1, 2].map((i) =>
    startServer({
      KV_PATH: kvPath,
      JOBS: "table",
      FORMWELL_ENV: "test",
      FORMWELL_SEED: "0",
      LOCAL_STORAGE_DIR: `${dir}/files${i}`,
      SMTP_URL: mail.url,
    })
  ));
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, {
      name: "Contact",
      fields: [{ name: "email", type: "email" }],
      notifications: {
        emails: [],
        autoresponder: { enabled: true, email_field: "email", subject: "Thanks", text: "Hi" },
      },
    });
    // One commit enqueues all 30 jobs, so both processes find them at once.
    await notifyEvents(
      env.deps,
      Array.from({ length: 30 }, (_, i) => ({
        type: "submission.created" as const,
        form,
        submission: submissionOf(form, { email: `p${i}@example.com` }),
      })),
    );
    const done = await within(
      30_000,
      async () => (await listEmailLog(env.deps, ws.id, 100)).length >= 30,
    );
    assert.notEqual(done, null, "30 outcomes logged");
    const log = await listEmailLog(env.deps, ws.id, 100);
    assert.equal(mail.mails.length, 20);
    assert.equal(log.filter((e) => e.result === "accepted").length, 20);
    assert.equal(log.filter((e) => e.result === "suppressed").length, 10);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    env.close();
    await mail.close();
    await Deno.remove(dir, { recursive: true });
  }
});
