/**
 * A webhook delivery whose process is killed (SIGKILL) while the endpoint holds the request
 * open is delivered after a restart on the same KV file: signed, with the webhook-id seen
 * before the kill, answered 2xx once and logged `delivered` once. Real `main.ts` processes
 * and a real receiver, in both job modes: `JOBS=table` redelivers when the job's 30 s lease
 * ends; `JOBS=queue` when the new process opens the file after KV's in-flight deadline.
 * @module
 */
import assert from "node:assert/strict";
import { Webhook as Verifier } from "standardwebhooks";
import { createApiKey } from "@/lib/keys/api_keys.ts";
import { loadConfig } from "@/lib/config.ts";
import { keys } from "@/lib/kv/keys.ts";
import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import { buildDeps } from "@/lib/runtime.ts";
import { makeForm, makeWorkspace } from "@/tests/helpers.ts";
import { type ServerProcess, startServer, within } from "@/tests/processes.ts";

const SECRET = "killed-delivery-secret-killed-delivery-0";

/**
 * KV (SQLite) keeps a dequeued message's deadline at most 5 s ahead while its process lives;
 * a process opening the file requeues messages past it. Restarting sooner leaves the message
 * to the next sweep of the running table, about 60 s later.
 */
const KV_INFLIGHT_DEADLINE_MS = 5_000;

/** One request the receiver got. */
interface Hit {
  webhookId: string;
  /** The signature verified against the endpoint's secret. */
  valid: boolean;
  /** `data.submission.id` of the verified payload. */
  submissionId: string | null;
  /** What the receiver answered: null while held (the sender was killed meanwhile). */
  status: number | null;
}

/** The part of an event body the test reads (CONTRACT: `data.submission` as GET one). */
type Payload = { data?: { submission?: { id?: string } } };

/**
 * A webhook endpoint on 127.0.0.1 that verifies every request's signature. It holds each
 * request open until `answer()`; from then on it answers 200.
 */
function receiver() {
  let verifier: Verifier | null = null;
  let holding = true;
  const hits: Hit[] = [];
  const held = new Set<() => void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    const headers = Object.fromEntries(req.headers);
    let payload: Payload | null = null;
    try {
      payload = verifier!.verify(body, headers) as Payload;
    } catch {
      // Recorded as invalid; the test fails on it.
    }
    const valid = payload !== null;
    const hit: Hit = {
      webhookId: headers["webhook-id"] ?? "",
      valid,
      submissionId: payload?.data?.submission?.id ?? null,
      status: null,
    };
    hits.push(hit);
    if (!valid) {
      hit.status = 400;
      return new Response("bad signature", { status: 400 });
    }
    if (holding) {
      const { promise, resolve } = Promise.withResolvers<void>();
      held.add(resolve);
      await promise;
      held.delete(resolve);
      return new Response("too late", { status: 503 });
    }
    hit.status = 200;
    return new Response("ok");
  });
  const answer = () => {
    holding = false;
    for (const release of held) release();
  };
  return {
    url: `http://127.0.0.1:${server.addr.port}/hook`,
    hits,
    /** The endpoint's secret, known once the webhook exists. */
    trust: (secret: string) => (verifier = new Verifier(secret)),
    answer,
    close: async () => {
      answer();
      await server.shutdown();
    },
  };
}

/** A workspace, form, admin key and webhook to `url`, written to the KV file directly. */
async function setUp(env: Record<string, string>, url: string) {
  const kv = await Deno.openKv(env.KV_PATH);
  try {
    const deps = await buildDeps(kv, loadConfig(env));
    const ws = await makeWorkspace(deps, "pro");
    const form = await makeForm(deps, ws);
    const key = await createApiKey(deps, {
      workspaceId: ws.id,
      name: "deliveries",
      scopes: ["admin"],
    });
    const hook = await createWebhook(deps, ws.id, { url }, { actor: "cli" });
    deps.storage.close?.();
    return { formId: form.id, hookId: hook.id, secret: hook.secret!, key: key.key };
  } finally {
    kv.close();
  }
}

/** The endpoint's delivery log through the Server Data API, newest first. */
async function deliveries(
  server: ServerProcess,
  hookId: string,
  key: string,
): Promise<{ msg_id: string; outcome: string; status: number | null }[]> {
  const res = await fetch(`${server.url}/api/v1/server/webhooks/${hookId}/deliveries`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.deliveries;
}

/** Jobs left in the job table (`JOBS=table`): none means nothing will deliver again. */
async function tableJobsLeft(kvPath: string): Promise<number> {
  const kv = await Deno.openKv(kvPath);
  try {
    let n = 0;
    for await (const _ of kv.list({ prefix: keys.jobsDue() })) n++;
    return n;
  } finally {
    kv.close();
  }
}

async function killedMidDelivery(jobs: "table" | "queue"): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "formwell-killed-delivery-" });
  const env = {
    KV_PATH: `${dir}/formwell.kv`,
    SECRET,
    JOBS: jobs,
    FORMWELL_ENV: "test",
    FORMWELL_SEED: "0",
    WEBHOOK_ALLOW_PRIVATE: "1",
    LOCAL_STORAGE_DIR: `${dir}/files`,
  };
  const rx = receiver();
  let server: ServerProcess | null = null;
  try {
    const { formId, hookId, secret, key } = await setUp(env, rx.url);
    rx.trust(secret);

    // Phase 1: one live submission; the receiver holds its delivery; the server is killed.
    server = await startServer(env);
    const submittedAt = Date.now();
    const res = await fetch(`${server.url}/api/v1/submit/p/${formId}`, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "Mozilla/5.0" },
      body: JSON.stringify({ data: { name: "Ada", email: "ada@example.com" } }),
    });
    const submitted = await res.json();
    assert.equal(res.status, 201, JSON.stringify(submitted));
    const inFlight = await within(15_000, () => Promise.resolve(rx.hits.length > 0));
    assert.notEqual(inFlight, null, "the delivery reached the receiver");
    await server.stop("SIGKILL");
    server = null;
    const killedAt = Date.now();
    assert.equal(rx.hits.length, 1);
    const [held] = rx.hits;
    assert.ok(held.valid, "the held request is signed with the endpoint's secret");
    assert.equal(held.status, null, "the held request was never answered");
    assert.equal(held.submissionId, submitted.submission_id);
    assert.ok(held.webhookId);

    // Phase 2: the receiver answers 200; a new process on the same file delivers the event.
    rx.answer();
    if (jobs === "queue") {
      // Not a guess: past this bound the new process's KV requeues the message on opening.
      const wait = killedAt + KV_INFLIGHT_DEADLINE_MS - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    const restartAt = Date.now();
    server = await startServer(env);
    const s = server;
    const answered = await within(45_000, () => Promise.resolve(rx.hits.length > 1));
    assert.notEqual(answered, null, "delivered after the restart");
    console.log(
      `JOBS=${jobs}: delivered ${Date.now() - submittedAt} ms after the submission, ` +
        `${Date.now() - killedAt} ms after the kill, ${
          Date.now() - restartAt
        } ms after the restart`,
    );
    const logged = await within(
      5_000,
      async () => (await deliveries(s, hookId, key)).some((d) => d.outcome === "delivered"),
    );
    assert.notEqual(logged, null, "the delivery is logged");
    if (jobs === "table") {
      const drained = await within(5_000, async () => (await tableJobsLeft(env.KV_PATH)) === 0);
      assert.notEqual(drained, null, "no job is left to deliver it again");
    }

    const after = rx.hits.slice(1);
    assert.ok(after.every((h) => h.valid), "every request after the restart is signed");
    assert.deepEqual(after.map((h) => [h.webhookId, h.status]), [[held.webhookId, 200]]);
    const log = await deliveries(server, hookId, key);
    assert.deepEqual(
      log.map((d) => [d.msg_id, d.outcome, d.status]),
      [[held.webhookId, "delivered", 200]],
      "the killed attempt logged nothing; the one after the restart logged `delivered`",
    );
  } finally {
    await server?.stop("SIGKILL");
    await rx.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

Deno.test("webhook (JOBS=table) - a process killed mid-delivery delivers after restart", async () => {
  await killedMidDelivery("table");
});

Deno.test("webhook (JOBS=queue) - a process killed mid-delivery delivers after restart", async () => {
  await killedMidDelivery("queue");
});
