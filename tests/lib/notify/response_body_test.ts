/**
 * The delivery log keeps an endpoint's reply as its body: a real HTTP server's chunked
 * replies (what Deno, Node and most frameworks send for streamed bodies) are logged as
 * their data, an empty one as empty and a multi-byte one intact, never the chunk framing.
 */
import assert from "node:assert/strict";
import { listDeliveries } from "@/lib/notify/deliver.ts";
import { notifySubmission } from "@/lib/notify/mod.ts";
import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import { makeForm, makeWorkspace, testEnv } from "../../helpers.ts";
import { runJobs, submissionOf, waitFor } from "./_support.ts";

/** A receiver streaming `parts` as its body (so it is sent chunked). */
function streaming(parts: string[]) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    await req.body?.cancel();
    const bytes = parts.map((p) => new TextEncoder().encode(p));
    return new Response(
      new ReadableStream({
        start(c) {
          for (const b of bytes) c.enqueue(b);
          c.close();
        },
      }),
    );
  });
  return { url: `http://127.0.0.1:${server.addr.port}/hook`, close: () => server.shutdown() };
}

Deno.test("webhook log: chunked replies are logged as their data", async (t) => {
  const env = await testEnv({ WEBHOOK_ALLOW_PRIVATE: "1" });
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    const cases: [string, string[], string][] = [
      ["an empty reply is empty", [], ""],
      ["multi-byte text across chunks is intact", ["Grüße, ", "ça va ", "✓"], "Grüße, ça va ✓"],
      ["a body that reads like a chunk size is kept", ["0\r\n\r\n"], "0\r\n\r\n"],
    ];
    for (const [what, parts, logged] of cases) {
      await t.step(what, async () => {
        const rx = streaming(parts);
        try {
          const hook = await createWebhook(env.deps, ws.id, { url: rx.url }, { actor: "cli" });
          const sub = submissionOf(form, { name: "Ada", email: "ada@example.com" });
          await notifySubmission(env.deps, { type: "submission.created", form, submission: sub });
          await waitFor(
            "a logged attempt",
            async () => (await listDeliveries(env.deps, hook.id)).length === 1,
          );
          const [d] = await listDeliveries(env.deps, hook.id);
          assert.equal(d.status, 200);
          assert.equal(d.outcome, "delivered");
          assert.equal(d.response, logged);
        } finally {
          await rx.close();
        }
      });
    }
  } finally {
    env.close();
    await jobs;
  }
});
