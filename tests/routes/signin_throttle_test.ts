import assert from "node:assert/strict";
import {
  emailDigest,
  FIRST_LOCK_MS,
  FREE_FAILURES,
  MAX_LOCK_MS,
  type SignInFailures,
} from "@/lib/admin/signin.ts";
import { keys } from "@/lib/kv/keys.ts";
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

const IPS = ["198.51.100.1", "198.51.100.2", "198.51.100.3"];

/** 12 wrong passwords from three addresses (each under its per-IP limit): answers in order. */
async function twelveWrong(env: TestEnv, email: string): Promise<[number, string][]> {
  const out: [number, string][] = [];
  for (let i = 0; i < 12; i++) {
    const res = await attempt(env, email, `wrong-${i}-password`, IPS[i % 3]);
    const html = await res.text();
    out.push([res.status, /role="alert">([^<]*)</.exec(html)?.[1] ?? ""]);
  }
  return out;
}

Deno.test("sign-in - a per-account budget with backoff, the same for unknown emails", async () => {
  const clock = { ms: Date.parse("2026-11-23T20:00:00Z") };
  const env = await testEnv({}, { now: () => clock.ms });
  try {
    await setup(env); // owner@example.com
    const real = await twelveWrong(env, "Owner@Example.com ");
    const ghost = await twelveWrong(env, "nobody@example.com");
    // The first five are plain mismatches; from the sixth on the email is locked.
    for (const [i, [status]] of real.entries()) {
      assert.equal(status, i < FREE_FAILURES ? 401 : 429, `attempt ${i + 1}: ${status}`);
    }
    assert.match(real[FREE_FAILURES][1], /Too many failed sign-ins/);
    // An unknown email gets exactly the same answers (statuses and messages).
    assert.deepEqual(ghost, real);

    // Locked: even the right password is refused, without saying it was right.
    const locked = await attempt(env, "owner@example.com", PASSWORD, "198.51.100.4");
    assert.equal(locked.status, 429);
    assert.equal(locked.headers.get("set-cookie"), null);
    await locked.body?.cancel();

    // After the lock (30 s after the 6th failure), the right password signs in and resets.
    clock.ms += FIRST_LOCK_MS + 1;
    const ok = await attempt(env, "owner@example.com", PASSWORD, "198.51.100.4");
    assert.equal(ok.status, 303);
    await ok.body?.cancel();
    for (let i = 0; i < FREE_FAILURES; i++) {
      const res = await attempt(env, "owner@example.com", "nope-nope-nope", IPS[i % 3]);
      assert.equal(res.status, 401, `after reset ${i + 1}`);
      await res.body?.cancel();
    }
  } finally {
    env.close();
  }
});

Deno.test("sign-in - each failure after the free ones doubles the lock, up to 15 min", async () => {
  const clock = { ms: Date.parse("2026-11-23T20:00:00Z") };
  const env = await testEnv({ RATE_LIMITS: JSON.stringify({ login: 1000 }) }, {
    now: () => clock.ms,
  });
  try {
    await setup(env);
    const key = keys.signInFailures(emailDigest(env.deps.secret, "owner@example.com"));
    const locks: number[] = [];
    for (let i = 0; i < FREE_FAILURES + 7; i++) {
      const res = await attempt(env, "owner@example.com", "nope-nope-nope", IPS[0]);
      await res.body?.cancel();
      assert.equal(res.status, i < FREE_FAILURES ? 401 : 429, `failure ${i + 1}`);
      const rec = (await env.deps.kv.get<SignInFailures>(key)).value!;
      assert.equal(rec.failures, i + 1);
      locks.push(Math.max(0, rec.locked_until - clock.ms));
      clock.ms += locks[i] + 1; // the next try comes just after the lock ends
    }
    const s = 1000;
    assert.deepEqual(locks, [
      0,
      0,
      0,
      0,
      0,
      30 * s,
      60 * s,
      120 * s,
      240 * s,
      480 * s,
      900 * s,
      900 * s,
    ]);
    assert.equal(MAX_LOCK_MS, 900 * s);
    assert.equal(FIRST_LOCK_MS, 30 * s);
  } finally {
    env.close();
  }
});
