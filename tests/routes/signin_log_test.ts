/**
 * A failed admin sign-in writes one `warn` line: the address masked with a keyed digest,
 * the client address truncated as the audit log keeps it, and why (mismatch, locked,
 * rate limited); never the password. A successful sign-in writes no such line.
 */
import assert from "node:assert/strict";
import { FREE_FAILURES } from "@/lib/admin/signin.ts";
import { setLogFormat } from "@/lib/observe/log.ts";
import { FORM_TYPE, PASSWORD, setup } from "@/tests/admin_support.ts";
import { type TestEnv, testEnv } from "@/tests/helpers.ts";

function attempt(env: TestEnv, email: string, password: string, ip: string) {
  return env.request("/admin/login", {
    method: "POST",
    headers: FORM_TYPE,
    body: new URLSearchParams({ email, password }).toString(),
    ip,
  });
}

/** The JSON lines written to stderr (warn and error) while `fn` runs. */
async function warnings(fn: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const { error } = console;
  console.error = (s: unknown) => lines.push(String(s));
  setLogFormat("json");
  try {
    await fn();
  } finally {
    console.error = error;
  }
  return lines.map((l) => JSON.parse(l));
}

Deno.test("sign-in log - a failed sign-in is one warn line without the password", async () => {
  const env = await testEnv({ RATE_LIMITS: '{"login":7}' });
  try {
    await setup(env); // owner@example.com
    const wrong = "the-wrong-password-1234";
    const failed = await warnings(async () => {
      const res = await attempt(env, "Owner@Example.com", wrong, "203.0.113.77");
      assert.equal(res.status, 401);
      await res.body?.cancel();
    });
    assert.equal(failed.length, 1, JSON.stringify(failed));
    const [line] = failed;
    assert.equal(line.level, "warn");
    assert.equal(line.msg, "admin sign-in failed");
    assert.equal(line.email, "o***@example.com");
    assert.match(String(line.email_digest), /^[0-9a-f]{16}$/);
    assert.equal(line.ip, "203.0.113.0");
    assert.equal(line.reason, "mismatch");
    assert.ok(!JSON.stringify(failed).includes(wrong), "never the password");
    assert.ok(!JSON.stringify(failed).includes("203.0.113.77"), "the address truncated");

    const ghost = await warnings(async () => {
      await (await attempt(env, "nobody@example.com", wrong, "2001:db8:1:2::9")).body?.cancel();
    });
    assert.equal(ghost.length, 1);
    assert.equal(ghost[0].email, "n***@example.com");
    assert.equal(ghost[0].ip, "2001:db8:1::");
    assert.notEqual(ghost[0].email_digest, line.email_digest);

    const ok = await warnings(async () => {
      const res = await attempt(env, "owner@example.com", PASSWORD, "203.0.113.78");
      assert.equal(res.status, 303);
    });
    assert.deepEqual(ok, [], "a success writes no warning");

    const locked = await warnings(async () => {
      for (let i = 0; i <= FREE_FAILURES; i++) {
        await (await attempt(env, "owner@example.com", wrong, `198.51.100.${i}`)).body?.cancel();
      }
    });
    assert.equal(locked.at(-1)?.reason, "locked");

    const limited = await warnings(async () => {
      for (let i = 0; i < 8; i++) {
        await (await attempt(env, "x@example.com", wrong, "192.0.2.9")).body?.cancel();
      }
    });
    assert.equal(limited.at(-1)?.reason, "rate_limited");
    assert.equal(limited.at(-1)?.ip, "192.0.2.0");
    assert.ok(!JSON.stringify([...locked, ...limited]).includes(wrong));
  } finally {
    env.close();
  }
});
