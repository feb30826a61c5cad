import assert from "node:assert/strict";
import { runCli } from "@/cli.ts";
import { makeWorkspace, testEnv } from "../../helpers.ts";

Deno.test("cli: webhook create|list|delete", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const out = await runCli(env.deps, [
      "webhook",
      "create",
      "--workspace",
      ws.id,
      "--url",
      "https://hooks.example.com/x",
      "--events",
      "submission.created,submission.deleted",
    ]) as { webhook: { id: string; secret: string; events: string[]; enabled: boolean } };
    assert.match(out.webhook.secret, /^whsec_/);
    assert.deepEqual(out.webhook.events, ["submission.created", "submission.deleted"]);
    const list = await runCli(env.deps, ["webhook", "list", "--workspace", ws.id]) as {
      webhooks: Record<string, unknown>[];
    };
    assert.equal(list.webhooks.length, 1);
    assert.equal(list.webhooks[0].secret, undefined);
    assert.deepEqual(await runCli(env.deps, ["webhook", "delete", "--webhook", out.webhook.id]), {
      deleted: true,
      id: out.webhook.id,
    });
    await assert.rejects(() =>
      runCli(env.deps, ["webhook", "create", "--workspace", ws.id, "--url", "http://x.example"])
    );
  } finally {
    env.close();
  }
});
