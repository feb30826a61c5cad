import assert from "node:assert/strict";
import {
  authenticateKey,
  createApiKey,
  isWellFormedKey,
  listApiKeys,
  revokeApiKey,
} from "@/lib/keys/api_keys.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { ApiKey } from "@/lib/schemas.ts";
import {
  contactData,
  makeForm,
  makeWorkspace,
  postJson,
  recount,
  testEnv,
} from "@/tests/helpers.ts";

Deno.test("api_keys - format, checksum and display", async (t) => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const live = await createApiKey(env.deps, { workspaceId: ws.id, name: " Backend " });
    const test = await createApiKey(env.deps, { workspaceId: ws.id, name: "CI", type: "test" });

    await t.step("prefix + 32 base62 + 6-char checksum; defaults", () => {
      assert.match(live.key, /^fw_live_[0-9A-Za-z]{38}$/);
      assert.match(test.key, /^fw_test_[0-9A-Za-z]{38}$/);
      assert.equal(live.name, "Backend");
      assert.deepEqual(live.scopes, ["submit", "read"]);
      assert.equal(live.prefix, live.key.slice(0, 12));
      assert.ok(isWellFormedKey(live.key) && isWellFormedKey(test.key));
    });

    await t.step("a typo or a fake fails the checksum without a lookup", () => {
      const body = live.key.slice(8);
      for (let i = 0; i < body.length; i++) {
        const c = body[i] === "a" ? "b" : "a";
        const typo = `fw_live_${body.slice(0, i)}${c}${body.slice(i + 1)}`;
        assert.equal(isWellFormedKey(typo), false, `typo at ${i}`);
      }
      assert.equal(isWellFormedKey(live.key.replace("fw_live_", "fw_test_")), false);
      assert.equal(isWellFormedKey(`fw_live_${"A".repeat(38)}`), false);
    });

    await t.step("a KV dump holds no raw key, nor its hidden part", async () => {
      const dump: string[] = [];
      for await (const e of env.deps.kv.list({ prefix: [] })) {
        dump.push(
          JSON.stringify(e.key),
          JSON.stringify(e.value, (_k, v) => typeof v === "bigint" ? String(v) : v),
        );
      }
      const text = dump.join("\n");
      assert.ok(text.includes(live.prefix), "the prefix is stored (the dump is real)");
      for (const raw of [live.key, test.key]) {
        assert.ok(!text.includes(raw));
        assert.ok(!text.includes(raw.slice(12)), "no hidden part of the key");
      }
      const listed = JSON.stringify(await listApiKeys(env.deps, ws.id));
      assert.ok(!listed.includes(live.key.slice(12)) && !listed.includes("hash"));
    });
  } finally {
    env.close();
  }
});

Deno.test("api_keys - authenticate, last_used_at once a minute, revoke at once", async () => {
  let now = Date.parse("2026-04-01T00:00:00Z");
  const env = await testEnv({}, { now: () => now });
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    const k = await createApiKey(env.deps, { workspaceId: ws.id, name: "k", type: "test" });
    const auth = await authenticateKey(env.deps, `Bearer ${k.key}`);
    assert.equal(auth.workspace.id, ws.id);
    assert.equal(auth.mode, "test");
    const stamp = async () =>
      (await env.deps.kv.get<ApiKey>(keys.apiKey(k.id))).value!.last_used_at;
    assert.equal(await stamp(), "2026-04-01T00:00:00.000Z");
    now += 59_000;
    await authenticateKey(env.deps, `bearer   ${k.key}`);
    assert.equal(await stamp(), "2026-04-01T00:00:00.000Z", "not rewritten within a minute");
    now += 2_000;
    await authenticateKey(env.deps, `Bearer ${k.key}`);
    assert.equal(await stamp(), "2026-04-01T00:01:01.000Z");
    await revokeApiKey(env.deps, k.id);
    await assert.rejects(
      authenticateKey(env.deps, `Bearer ${k.key}`),
      (e: Error & { code?: string }) => e.code === "invalid_api_key",
    );
    const [view] = await listApiKeys(env.deps, ws.id);
    assert.equal(view.revoked, true);
    assert.equal(view.last_used_at, "2026-04-01T00:01:01.000Z");
  } finally {
    env.close();
  }
});

Deno.test("api_keys - plan rules: Starter or above, active-key cap", async () => {
  const env = await testEnv();
  try {
    const free = await makeWorkspace(env.deps, "free");
    await assert.rejects(
      createApiKey(env.deps, { workspaceId: free.id, name: "k" }),
      (e: Error & { code?: string }) => e.code === "plan_required",
    );
    const starter = await makeWorkspace(env.deps, "starter");
    const a = await createApiKey(env.deps, { workspaceId: starter.id, name: "a" });
    await createApiKey(env.deps, { workspaceId: starter.id, name: "b" });
    await assert.rejects(
      createApiKey(env.deps, { workspaceId: starter.id, name: "c" }),
      (e: Error & { code?: string }) => e.code === "quota_exceeded",
    );
    await revokeApiKey(env.deps, a.id);
    const c = await createApiKey(env.deps, { workspaceId: starter.id, name: "c" });
    assert.ok(c.key);
    await assert.rejects(
      createApiKey(env.deps, {
        workspaceId: starter.id,
        name: "d",
        scopes: ["root" as "admin"],
      }),
      (e: Error & { code?: string }) => e.code === "bad_request",
    );
    // Concurrent creates cannot overshoot the cap.
    const pro = await makeWorkspace(env.deps, "pro");
    const results = await Promise.allSettled(
      Array.from(
        { length: 15 },
        (_, i) => createApiKey(env.deps, { workspaceId: pro.id, name: `p${i}` }),
      ),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 10);
  } finally {
    env.close();
  }
});

Deno.test("api_keys - another instance's revocation is seen within the cache TTL", async () => {
  let now = Date.parse("2026-11-22T10:00:00Z");
  const env = await testEnv({}, { now: () => now });
  try {
    // A second instance on the same KV: its own deps, its own key cache.
    const { buildDeps } = await import("@/lib/runtime.ts");
    const other = await buildDeps(env.deps.kv, env.deps.config, { now: () => now });
    const ws = await makeWorkspace(env.deps, "starter");
    const k = await createApiKey(env.deps, { workspaceId: ws.id, name: "cached" });
    const header = `Bearer ${k.key}`;
    await authenticateKey(env.deps, header); // cached on this instance now
    await revokeApiKey(other, k.id);
    await assert.rejects(
      authenticateKey(other, header),
      /Invalid API key/,
      "revoking instance: at once",
    );
    // This instance may serve its cached entry for at most the TTL (5 s, SPEC allows ~30 s)...
    now += 1_000;
    await authenticateKey(env.deps, header);
    // ...and not a moment longer.
    now += 5_000;
    await assert.rejects(authenticateKey(env.deps, header), /Invalid API key/);
    other.storage.close?.();
  } finally {
    env.close();
  }
});

Deno.test("api_keys - a suspended workspace is refused at once, cached key or not", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    const form = await makeForm(env.deps, ws);
    const k = await createApiKey(env.deps, { workspaceId: ws.id, name: "cached" });
    const header = `Bearer ${k.key}`;
    const submit = () =>
      postJson(env, `/api/v1/submit/p/${form.id}`, contactData(), { authorization: header });
    const first = await submit(); // the key is cached with its workspace now
    assert.equal(first.status, 201, await first.text());
    await env.deps.kv.set(keys.workspace(ws.id), { ...ws, suspended: true });
    await assert.rejects(authenticateKey(env.deps, header), /Invalid API key/);
    // The submit path reads the workspace with the form rather than with the key.
    const refused = await submit();
    assert.equal(refused.status, 401);
    assert.equal((await refused.json()).error, "Invalid API key.");
    await env.deps.kv.set(keys.workspace(ws.id), { ...ws, plan: "free" });
    const free = await submit();
    assert.equal(free.status, 403);
    assert.equal((await free.json()).code, "plan_required");
    assert.equal(await recount(env.deps, form.id), 1);
  } finally {
    env.close();
  }
});
