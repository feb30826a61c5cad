import assert from "node:assert/strict";
import { runCli } from "@/cli.ts";
import { listAudit } from "@/lib/privacy/audit.ts";
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

Deno.test("cli: webhook create --mode test; create and delete audited as cli", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const create = (mode?: string) =>
      runCli(env.deps, [
        "webhook",
        "create",
        "--workspace",
        ws.id,
        "--url",
        "https://hooks.example.com:8443/x",
        ...(mode ? ["--mode", mode] : []),
      ]) as Promise<{ webhook: { id: string; mode: string } }>;
    const test = (await create("test")).webhook;
    const live = (await create()).webhook;
    assert.deepEqual([test.mode, live.mode], ["test", "live"]);
    await assert.rejects(() => create("staging"), /--mode must be live or test/);
    const list = await runCli(env.deps, ["webhook", "list", "--workspace", ws.id]) as {
      webhooks: { id: string; mode: string }[];
    };
    assert.deepEqual(list.webhooks.map((w) => [w.id, w.mode]), [[test.id, "test"], [
      live.id,
      "live",
    ]]);
    await runCli(env.deps, ["webhook", "delete", "--webhook", test.id]);
    const { events } = await listAudit(env.deps, ws.id, { page: 1, limit: 10 });
    assert.deepEqual(
      events.map((e) => [e.action, e.actor, e.details.webhook_id, e.details.host]).reverse(),
      [
        ["webhook.created", "cli", test.id, "hooks.example.com:8443"],
        ["webhook.created", "cli", live.id, "hooks.example.com:8443"],
        ["webhook.deleted", "cli", test.id, "hooks.example.com:8443"],
      ],
    );
    assert.ok(!JSON.stringify(events).includes("whsec_"));
  } finally {
    env.close();
  }
});
