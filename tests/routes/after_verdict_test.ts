/**
 * The whole path after a submit, with the real job runner: the scoring job reads the text
 * (content model) and writes the final verdict, then notifies: the owner's email lands in
 * the outbox and a real receiver gets signed `submission.created` events with the final
 * status; a re-label and a delete through the API are notified too, each event once.
 */
import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import { Webhook as Verifier } from "standardwebhooks";
import { dispatch } from "@/lib/jobs/mod.ts";

import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import { listOutbox } from "@/lib/notify/outbox.ts";
import { setSubmissionStatus } from "@/lib/submissions/status.ts";
import { CONTACT_FORM, makeForm, makeKey, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { waitFor } from "@/tests/lib/notify/_support.ts";

const SPAM_TEXT = "Dear friend, I am Mr. James Williams, a banker. I have a business proposal " +
  "of $25,000,000 USD transfer. You will receive 30% of the total funds. Please reply with " +
  "your bank account details, full name and phone number to proceed urgently. This " +
  "transaction is 100% risk free. Click here to remove yourself from our mailing list. Order " +
  "now and get our special offer, free shipping on all orders, lowest prices guaranteed, " +
  "visit our website today to buy cheap meds online without prescription. Make money fast, " +
  "work from home and earn thousands every week. Limited time only, act now!";

Deno.test("after the verdict - content scoring, owner email and webhooks, once each", async () => {
  const env = await testEnv({ WEBHOOK_ALLOW_PRIVATE: "1" });
  const got: Array<{ headers: Record<string, string>; body: string }> = [];
  const rx = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    got.push({ headers: Object.fromEntries(req.headers), body: await req.text() });
    return new Response("ok");
  });
  env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws, {
      ...CONTACT_FORM,
      fields: [...(CONTACT_FORM.fields ?? []), {
        id: "fld_msg",
        name: "message",
        type: "textarea",
      }],
      notifications: { emails: ["owner@example.com"] },
    });
    const hook = await createWebhook(env.deps, ws.id, {
      url: `http://127.0.0.1:${rx.addr.port}/hook`,
      events: ["submission.created", "submission.status_changed", "submission.deleted"],
    }, { actor: "cli" });
    const key = await makeKey(env.deps, ws, { scopes: ["submit", "read", "admin"] });
    const submit = async (message: string) => {
      const res = await env.request(`/api/v1/submit/p/${form.id}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ data: { name: "Ada", email: "ada@example.com", message } }),
      });
      assert.equal(res.status, 201);
      return (await res.json()).submission_id as string;
    };
    const events = () =>
      got.map((r) =>
        new Verifier(hook.secret!).verify(r.body, r.headers) as {
          type: string;
          data: { submission: { id: string; status: string; metadata: Record<string, unknown> } };
        }
      );
    const of = (type: string, id: string) =>
      events().filter((e) => e.type === type && e.data.submission.id === id);

    const ham = await submit("Hello, could you send me a quote for 20 chairs? Thanks, Ada");
    const spam = await submit(SPAM_TEXT);
    await waitFor("both created events", () => events().length >= 2);
    const [hamEvent] = of("submission.created", ham);
    const [spamEvent] = of("submission.created", spam);
    assert.equal(hamEvent.data.submission.status, "completed");
    // Final when stored: the payload's metadata is the client's, with no later verdict.
    assert.equal(hamEvent.data.submission.metadata.scored_at, undefined);
    assert.equal(spamEvent.data.submission.status, "spam");
    const stored = await readSubmission(env.deps.kv, form.id, spam);
    const reasons = stored?.spam?.reasons ?? [];
    assert.ok(reasons.some((r) => r.startsWith("content_")), JSON.stringify(reasons));

    // Only the completed one mails the owner (spam does not notify by default).
    await waitFor("the owner's email", async () => (await listOutbox(env.deps, ws.id)).length > 0);
    const mails = await listOutbox(env.deps, ws.id);
    assert.equal(mails.length, 1);
    assert.deepEqual(mails[0].to, ["owner@example.com"]);

    // A re-delivered notification job adds nothing.
    await dispatch(env.deps, { type: "notify_created", form_id: form.id, ids: [ham, spam] });
    await setSubmissionStatus(env.deps, form.id, spam, "completed");
    const del = await env.request(`/api/v1/server/forms/${form.id}/submissions`, {
      method: "DELETE",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ ids: [ham] }),
    });
    assert.equal(del.status, 200);
    await waitFor("the status change and the delete", () => events().length >= 4);
    // Room for a stray duplicate to arrive before counting.
    await waitFor("the job queue to drain", async () => {
      const s = await env.deps.kv.list({ prefix: ["jobs_due"] }).next();
      return s.done === true;
    });
    assert.equal(of("submission.created", ham).length, 1);
    assert.equal(of("submission.created", spam).length, 1);
    assert.equal(of("submission.status_changed", spam).length, 1);
    assert.equal(of("submission.deleted", ham).length, 1);
    assert.equal(new Set(got.map((r) => r.headers["webhook-id"])).size, got.length);
    assert.equal((await listOutbox(env.deps, ws.id)).length, 1);
  } finally {
    await env.deps.jobs.stop();
    await rx.shutdown();
    env.close();
  }
});
