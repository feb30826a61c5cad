import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import { Webhook as Verifier } from "standardwebhooks";
import { listDeliveries } from "@/lib/notify/deliver.ts";
import { resendDelivery, sendTestEvent } from "@/lib/notify/manual.ts";
import { notifyEvents, notifySubmission } from "@/lib/notify/mod.ts";
import { isPublicAddress } from "@/lib/notify/ssrf.ts";
import {
  createWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  updateWebhook,
} from "@/lib/notify/webhook_edits.ts";
import type { Webhook } from "@/lib/notify/webhooks.ts";

import { keys } from "@/lib/kv/keys.ts";
import { AppError } from "@/lib/errors.ts";
import { makeForm, makeKey, makeWorkspace, postJson, testEnv } from "../../helpers.ts";
import { receiver, runJobs, submissionOf, waitFor } from "./_support.ts";

/** Changes made as the CLI would (audited as `cli`). */
const CLI = { actor: "cli" };

const FAST = { WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_DELAYS: "30,30,30,30,30,30,30" };

Deno.test("webhook: down for three attempts then up: one success, one webhook-id, all signed", async () => {
  const env = await testEnv(FAST);
  const rx = receiver((n) => (n <= 3 ? 503 : 200));
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    const hook = await createWebhook(env.deps, ws.id, { url: rx.url }, CLI);
    assert.match(hook.secret!, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const hostile = `a\r\nBcc: evil@example.com <script>alert(1)</script> ` + "x".repeat(100_000);
    const sub = submissionOf(form, { name: hostile, email: "p@example.com" });
    const eventId = await notifySubmission(env.deps, {
      type: "submission.created",
      form,
      submission: sub,
    });
    assert.ok(eventId);
    await waitFor("a 2xx delivery", () => rx.got.some((r) => r.answered === 200));
    await waitFor(
      "four logged attempts",
      async () => (await listDeliveries(env.deps, hook.id)).length === 4,
    );
    assert.equal(rx.got.length, 4);
    assert.equal(rx.got.filter((r) => r.answered === 200).length, 1);
    const ids = new Set(rx.got.map((r) => r.headers["webhook-id"]));
    assert.deepEqual([...ids], [eventId]);
    const verifier = new Verifier(hook.secret!);
    for (const r of rx.got) {
      const payload = verifier.verify(r.body, r.headers) as Record<string, unknown>;
      assert.equal(payload.type, "submission.created");
    }
    const body = JSON.parse(rx.got[3].body);
    assert.equal(body.data.form.public_id, form.id);
    assert.equal(body.data.submission.id, sub.id);
    assert.equal(body.data.submission.fields.name, hostile, "hostile value intact");
    const log = await listDeliveries(env.deps, hook.id);
    assert.deepEqual(log.map((d) => d.outcome), ["delivered", "retrying", "retrying", "retrying"]);
    assert.deepEqual(log.map((d) => d.attempt), [4, 3, 2, 1]);
    assert.deepEqual(log.map((d) => d.status), [200, 503, 503, 503]);
    assert.equal(log[0].response, "thanks");
    const w = (await env.deps.kv.get<Webhook>(keys.webhook(hook.id))).value!;
    assert.equal(w.failing_since, null);

    // Resend: the same event, the same webhook-id, once.
    await resendDelivery(env.deps, ws.id, hook.id, log[0].id);
    await waitFor("the resend", () => rx.got.length === 5);
    assert.equal(rx.got[4].headers["webhook-id"], eventId);
    assert.equal(rx.got[4].body, rx.got[3].body);
  } finally {
    env.close();
    await jobs;
    await rx.close();
  }
});

Deno.test("webhook: retries run out as failed; 410 disables at once", async () => {
  const env = await testEnv({ WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_DELAYS: "20,20" });
  const down = receiver(() => 500);
  const gone = receiver(() => 410);
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    const a = await createWebhook(env.deps, ws.id, { url: down.url }, CLI);
    const b = await createWebhook(env.deps, ws.id, { url: gone.url, forms: [form.id] }, CLI);
    await notifySubmission(env.deps, {
      type: "submission.created",
      form,
      submission: submissionOf(form, { name: "n", email: "n@example.com" }),
    });
    await waitFor(
      "three failed attempts",
      async () => (await listDeliveries(env.deps, a.id))[0]?.outcome === "failed",
    );
    assert.equal((await listDeliveries(env.deps, a.id)).length, 3);
    assert.equal(down.got.length, 3);
    await waitFor("410 logged", async () => (await listDeliveries(env.deps, b.id)).length === 1);
    const wb = (await env.deps.kv.get<Webhook>(keys.webhook(b.id))).value!;
    assert.equal(wb.enabled, false);
    assert.match(wb.disabled_reason ?? "", /410/);
    assert.equal(gone.got.length, 1);
    // A disabled endpoint gets nothing more.
    await notifySubmission(env.deps, {
      type: "submission.created",
      form,
      submission: submissionOf(form, { name: "m", email: "m@example.com" }),
    });
    await waitFor("a's next event", () => down.got.length === 6);
    assert.equal(gone.got.length, 1);
  } finally {
    env.close();
    await jobs;
    await down.close();
    await gone.close();
  }
});

Deno.test("webhook: rotation signs with both secrets; test event", async () => {
  const env = await testEnv(FAST);
  const rx = receiver(() => 202);
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const hook = await createWebhook(env.deps, ws.id, { url: rx.url }, CLI);
    const rotated = await rotateWebhookSecret(env.deps, ws.id, hook.id, CLI);
    assert.notEqual(rotated.secret, hook.secret);
    await sendTestEvent(env.deps, ws.id, hook.id, CLI);
    await waitFor("test event", () => rx.got.length === 1);
    const r = rx.got[0];
    assert.equal(r.headers["webhook-signature"].split(" ").length, 2);
    for (const s of [hook.secret!, rotated.secret]) new Verifier(s).verify(r.body, r.headers);
    assert.equal(JSON.parse(r.body).type, "webhook.test");
    await waitFor("logged", async () => (await listDeliveries(env.deps, hook.id)).length === 1);
    assert.equal((await listDeliveries(env.deps, hook.id))[0].status, 202);
  } finally {
    env.close();
    await jobs;
    await rx.close();
  }
});

Deno.test("webhook: private targets refused without WEBHOOK_ALLOW_PRIVATE, at create and at send", async () => {
  const env = await testEnv({ WEBHOOK_RETRY_DELAYS: "20" });
  const rx = receiver(() => 200);
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    for (
      const url of [
        rx.url,
        "https://127.0.0.1/x",
        "https://10.0.0.1/x",
        "https://169.254.169.254/latest",
        "https://[::1]/x",
        "https://[fd00:ec2::254]/x",
        "https://100.64.0.1/x",
        "ftp://example.com/x",
      ]
    ) {
      await assert.rejects(
        () => createWebhook(env.deps, ws.id, { url }, CLI),
        (e) => e instanceof AppError && e.status === 400,
        url,
      );
    }
    // A stored target that now points at loopback (as a name re-resolving would) is
    // refused at the attempt, and the receiver never sees a request.
    const hook = await createWebhook(env.deps, ws.id, { url: "https://hooks.example.com/x" }, CLI);
    const e = await env.deps.kv.get<Webhook>(keys.webhook(hook.id));
    const httpsLoop = rx.url.replace("http:", "https:");
    await env.deps.kv.set(keys.webhook(hook.id), { ...e.value!, url: httpsLoop });
    await notifySubmission(env.deps, {
      type: "submission.created",
      form,
      submission: submissionOf(form, { name: "n", email: "n@example.com" }),
    });
    await waitFor(
      "refused attempts",
      async () => (await listDeliveries(env.deps, hook.id))[0]?.outcome === "failed",
    );
    const log = await listDeliveries(env.deps, hook.id);
    assert.ok(
      log.every((d) => d.status === null && /public/.test(d.error ?? "")),
      JSON.stringify(log),
    );
    assert.equal(rx.got.length, 0);
    for (
      const a of [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "100.64.1.1",
        "169.254.169.254",
        "0.0.0.0",
        "224.0.0.1",
        "::1",
        "fe80::1",
        "fd00:ec2::254",
        "::ffff:127.0.0.1",
        "240.0.0.1",
      ]
    ) {
      assert.equal(isPublicAddress(a), false, a);
    }
    for (const a of ["93.184.216.34", "2606:4700::1111", "8.8.8.8"]) {
      assert.equal(isPublicAddress(a), true, a);
    }
  } finally {
    env.close();
    await jobs;
    await rx.close();
  }
});

Deno.test("webhook: a batch of events is one delivery job; only its failures are retried, together", async () => {
  const env = await testEnv(FAST);
  const seen = new Set<string>();
  const got: { id: string; status: number }[] = [];
  // Answers 503 to the first attempt of each "flaky" submission, 200 otherwise.
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    const id = req.headers.get("webhook-id")!;
    const status = body.includes('"name":"flaky') && !seen.has(id) ? 503 : 200;
    seen.add(id);
    got.push({ id, status });
    return new Response("ok", { status });
  });
  const deliveryJobs: string[][] = [];
  const enqueue = env.deps.jobs.enqueue.bind(env.deps.jobs);
  env.deps.jobs.enqueue = (op, job, opts) => {
    if (job.type === "deliver_webhook") deliveryJobs.push(job.event_ids);
    enqueue(op, job, opts);
  };
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    const hook = await createWebhook(env.deps, ws.id, {
      url: `http://127.0.0.1:${server.addr.port}/hook`,
    }, CLI);
    const names = ["ok1", "flaky1", "ok2", "flaky2", "ok3"];
    const subs = names.map((name) => submissionOf(form, { name, email: `${name}@example.com` }));
    const evs = subs.map((s) => ({
      type: "submission.created" as const,
      form,
      submission: s,
      event_id: `msg_created_${s.id}`,
    }));
    const ids = await notifyEvents(env.deps, evs);
    assert.deepEqual(ids, evs.map((e) => e.event_id));
    // A second call with the same fixed ids (a re-delivered job) enqueues nothing.
    assert.deepEqual(await notifyEvents(env.deps, evs), ids);
    await waitFor(
      "every event delivered",
      async () =>
        (await listDeliveries(env.deps, hook.id)).filter((d) => d.outcome === "delivered")
          .length === 5,
    );
    assert.deepEqual(deliveryJobs, [ids, [ids[1], ids[3]]], "one job, then one retry of two");
    assert.equal(got.length, 7);
    assert.deepEqual(new Set(got.map((g) => g.id)), new Set(ids));
    const log = await listDeliveries(env.deps, hook.id);
    assert.equal(log.length, 7);
    const byEvent = (id: string) => log.filter((d) => d.event_id === id).map((d) => d.outcome);
    assert.deepEqual(byEvent(ids[0]!), ["delivered"]);
    assert.deepEqual(byEvent(ids[1]!).sort(), ["delivered", "retrying"]);
  } finally {
    env.close();
    await jobs;
    await server.shutdown();
  }
});

Deno.test("webhook: a verdict enqueues notify_created only while someone listens", async () => {
  const env = await testEnv(FAST);
  const rx = receiver(() => 200);
  const notifyJobs: string[][] = [];
  const enqueue = env.deps.jobs.enqueue.bind(env.deps.jobs);
  // Counts the notify jobs committed (an attempt that lost its check enqueued nothing).
  env.deps.jobs.enqueue = (op, job, opts) => {
    if (job.type === "notify_created") {
      const commit = op.commit.bind(op);
      op.commit = async () => {
        const res = await commit();
        if (res.ok) notifyJobs.push(job.ids);
        return res;
      };
    }
    enqueue(op, job, opts);
  };
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    const other = await makeForm(env.deps, ws);
    const key = await makeKey(env.deps, ws);
    const submit = async (name: string) => {
      const res = await postJson(env, `/api/v1/submit/p/${form.id}`, {
        data: { name, email: `${name}@example.com` },
      }, { authorization: `Bearer ${key}` });
      assert.equal(res.status, 201);
      const id = (await res.json()).submission_id as string;
      await waitFor(
        "the verdict",
        async () => !!(await readSubmission(env.deps.kv, form.id, id))?.scored_at,
      );
      return id;
    };
    await submit("nobody");
    const hook = await createWebhook(env.deps, ws.id, { url: rx.url, forms: [other.id] }, CLI);
    await submit("other-form-only");
    assert.deepEqual(notifyJobs, [], "no email settings and no listener: no job");
    await updateWebhook(env.deps, ws.id, hook.id, { forms: [form.id] }, CLI);
    const heard = await submit("heard");
    assert.deepEqual(notifyJobs, [[heard]]);
    await waitFor("the delivery", () => rx.got.length === 1);
    assert.equal(JSON.parse(rx.got[0].body).data.submission.id, heard);
    await updateWebhook(env.deps, ws.id, hook.id, { enabled: false }, CLI);
    await submit("disabled");
    await deleteWebhook(env.deps, ws.id, hook.id, CLI);
    await submit("deleted");
    assert.equal(notifyJobs.length, 1);
  } finally {
    env.close();
    await jobs;
    await rx.close();
  }
});
