import assert from "node:assert/strict";
import {
  emailDigest,
  FIRST_LOCK_MS,
  FREE_FAILURES,
  MAX_LOCK_MS,
  type SignInFailures,
} from "@/lib/admin/signin.ts";
import { createUser } from "@/lib/admin/users.ts";
import { keys } from "@/lib/kv/keys.ts";
import { FORM_TYPE, PASSWORD, setup } from "@/tests/admin_support.ts";
import { accountEnv, mailedLink, postPublic } from "@/tests/account_support.ts";
import { type TestEnv, testEnv } from "@/tests/helpers.ts";

function attempt(env: TestEnv, email: string, password: string, ip: string, cookie = "") {
  return env.request("/admin/login", {
    method: "POST",
    headers: { ...FORM_TYPE, ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams({ email, password }).toString(),
    ip,
  });
}

/** The device cookie a sign-in answer sets, as a `Cookie` pair ("" when it sets none). */
function deviceOf(res: Response): string {
  return res.headers.getSetCookie().map((c) => c.split(";")[0])
    .find((c) => /^(__Host-)?formwell_device=/.test(c)) ?? "";
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

const OWNER = "owner@example.com";
const HOME = "192.0.2.50";

/** Signs in as the owner from their usual browser; returns its device cookie. */
async function knownBrowser(env: TestEnv): Promise<string> {
  const res = await attempt(env, OWNER, PASSWORD, HOME);
  assert.equal(res.status, 303);
  await res.body?.cancel();
  return deviceOf(res);
}

Deno.test("sign-in - strangers' failures do not lock out a browser that signed in before", async () => {
  const clock = { ms: Date.parse("2026-11-23T20:00:00Z") };
  const env = await testEnv({}, { now: () => clock.ms });
  try {
    await setup(env);
    const device = await knownBrowser(env);
    // Strangers fail 12 times from three addresses, then once every 15 minutes for an hour.
    assert.equal((await twelveWrong(env, OWNER)).at(-1)![0], 429);
    for (let i = 0; i < 4; i++) {
      clock.ms += MAX_LOCK_MS;
      const res = await attempt(env, OWNER, "still guessing", IPS[i % 3]);
      assert.equal(res.status, 429);
      await res.body?.cancel();
    }
    // The browser that signed in before still signs in with the right password, from
    // wherever it is now, and gets a fresh device cookie.
    const ok = await attempt(env, OWNER, PASSWORD, "198.51.100.77", device);
    assert.equal(ok.status, 303, await ok.text());
    const renewed = deviceOf(ok);
    assert.ok(renewed && renewed !== device);
    assert.equal((await attempt(env, OWNER, PASSWORD, HOME, renewed)).status, 303);
  } finally {
    env.close();
  }
});

Deno.test("sign-in - unknown devices stay throttled per account", async () => {
  const env = await testEnv();
  try {
    const { ws } = await setup(env);
    const device = await knownBrowser(env);
    await createUser(env.deps, {
      email: "other@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "owner",
    });
    const otherRes = await attempt(env, "other@example.com", PASSWORD, HOME);
    const otherDevice = deviceOf(otherRes);
    assert.ok(otherDevice);
    await otherRes.body?.cancel();
    await twelveWrong(env, OWNER);
    const [name, value] = device.split("=");
    const flipped = value.slice(0, -1) + (value.endsWith("a") ? "b" : "a");
    const foreignSecret = `${value.split(".").slice(0, 2).join(".")}.${"0".repeat(64)}`;
    const cases = {
      "no device cookie": "",
      "a device cookie with a wrong signature": `${name}=${flipped}`,
      "a device cookie not signed by this server": `${name}=${foreignSecret}`,
      "another account's device cookie": otherDevice,
    };
    for (const [what, cookie] of Object.entries(cases)) {
      const res = await attempt(env, OWNER, PASSWORD, HOME, cookie);
      assert.equal(res.status, 429, what);
      assert.match(await res.text(), /Too many failed sign-ins for this email/, what);
      assert.equal(res.headers.get("set-cookie"), null, what);
    }
    // The other account's own browser is not affected by the owner's lockout.
    assert.equal(
      (await attempt(env, "other@example.com", PASSWORD, HOME, otherDevice)).status,
      303,
    );
  } finally {
    env.close();
  }
});

Deno.test("sign-in - a known browser's own failures lock that browser, not the account", async () => {
  const clock = { ms: Date.parse("2026-11-23T20:00:00Z") };
  const env = await testEnv({}, { now: () => clock.ms });
  try {
    await setup(env);
    const device = await knownBrowser(env);
    const answers: number[] = [];
    for (let i = 0; i < FREE_FAILURES + 1; i++) {
      const res = await attempt(env, OWNER, `wrong-${i}-password`, HOME, device);
      answers.push(res.status);
      if (i === FREE_FAILURES) assert.match(await res.text(), /from this browser/);
      else await res.body?.cancel();
    }
    assert.deepEqual(answers, [401, 401, 401, 401, 401, 429]);
    const locked = await attempt(env, OWNER, PASSWORD, HOME, device);
    assert.equal(locked.status, 429);
    await locked.body?.cancel();
    // Its failures were not the account's: any other browser signs in at once.
    const key = keys.signInFailures(emailDigest(env.deps.secret, OWNER));
    assert.equal((await env.deps.kv.get(key)).value, null);
    assert.equal((await attempt(env, OWNER, PASSWORD, "198.51.100.8")).status, 303);
    clock.ms += FIRST_LOCK_MS + 1;
    assert.equal((await attempt(env, OWNER, PASSWORD, HOME, device)).status, 303);
  } finally {
    env.close();
  }
});

Deno.test("sign-in - a password reset lifts the account's lockout", async () => {
  const env = await accountEnv();
  try {
    await setup(env);
    await twelveWrong(env, OWNER);
    const locked = await attempt(env, OWNER, PASSWORD, HOME);
    assert.equal(locked.status, 429);
    await locked.body?.cancel();
    const ask = await postPublic(env, "/admin/reset", { email: OWNER });
    assert.equal(ask.status, 303);
    const link = await mailedLink(env, OWNER, "reset");
    const fields = {
      new_password: "a brand new password",
      confirm_password: "a brand new password",
    };
    assert.equal((await postPublic(env, link, fields)).status, 303);
    // A browser that never signed in before signs in with the new password at once.
    const res = await attempt(env, OWNER, "a brand new password", "198.51.100.99");
    assert.equal(res.status, 303, await res.text());
  } finally {
    await env.stop();
  }
});

Deno.test("sign-in - the device cookie: HttpOnly, SameSite=Lax, a year, Secure and __Host- on HTTPS", async () => {
  for (const base of ["https://forms.example.org", "http://localhost:8000"]) {
    const env = await testEnv({ BASE_URL: base });
    try {
      await setup(env);
      const res = await attempt(env, OWNER, PASSWORD, HOME);
      assert.equal(res.status, 303);
      const cookie = res.headers.getSetCookie().find((c) => c.includes("formwell_device="));
      assert.ok(cookie, base);
      const https = base.startsWith("https:");
      const name = https ? "__Host-formwell_device" : "formwell_device";
      assert.match(
        cookie,
        new RegExp(`^${name}=usr_[0-9a-z]{26}\\.[0-9A-Za-z]{22}\\.[0-9a-f]{64}; `),
      );
      const attrs = cookie.split("; ").slice(1).sort();
      const expected = ["HttpOnly", "Max-Age=31536000", "Path=/", "SameSite=Lax"];
      assert.deepEqual(attrs, (https ? [...expected, "Secure"] : expected).sort(), base);
    } finally {
      env.close();
    }
  }
});
