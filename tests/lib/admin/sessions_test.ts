import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { sha256Hex } from "@/lib/ids.ts";
import {
  createSession,
  csrfMatches,
  deleteSession,
  getSession,
  readSessionToken,
  renewSession,
  SESSION_IDLE_MS,
  SESSION_MAX_MS,
  SESSION_RENEW_STEP_MS,
  sessionCookie,
  sessionCookieName,
  setSessionWorkspace,
} from "@/lib/admin/sessions.ts";
import { testEnv } from "@/tests/helpers.ts";

Deno.test("sessions - store, expiry, sign-out", async (t) => {
  let now = Date.UTC(2026, 0, 1);
  const env = await testEnv({}, { now: () => now });
  try {
    await t.step("only the digest of the token is stored", async () => {
      const { token, session } = await createSession(env.deps, "usr_1", "ws_1");
      assert.match(token, /^[0-9A-Za-z]{43}$/);
      const stored = await env.deps.kv.get(keys.session(await sha256Hex(token)));
      assert.deepEqual(stored.value, session);
      assert.equal((await env.deps.kv.get(keys.session(token))).value, null);
      assert.equal(session.expires_at, now + SESSION_IDLE_MS);
      assert.deepEqual(await getSession(env.deps, token), session);
    });

    await t.step("unknown, malformed and missing tokens find nothing", async () => {
      assert.equal(await getSession(env.deps, undefined), null);
      assert.equal(await getSession(env.deps, "short"), null);
      assert.equal(await getSession(env.deps, "a".repeat(43)), null);
      assert.equal(await getSession(env.deps, "../../" + "a".repeat(37)), null);
    });

    await t.step("expiry is checked by the server, not left to KV", async () => {
      const { token } = await createSession(env.deps, "usr_2", null);
      now += SESSION_IDLE_MS - 1;
      assert.notEqual(await getSession(env.deps, token), null);
      now += 1;
      assert.equal(await getSession(env.deps, token), null);
      // The expired record was removed on read.
      assert.equal((await env.deps.kv.get(keys.session(await sha256Hex(token)))).value, null);
    });

    await t.step("activity slides the expiry, at most one write per step", async () => {
      const signedIn = now;
      const { token, session } = await createSession(env.deps, "usr_6", null);
      const stored = async () =>
        (await env.deps.kv.get(keys.session(await sha256Hex(token)))).versionstamp;
      const before = await stored();
      now += SESSION_RENEW_STEP_MS - 1;
      assert.equal(await renewSession(env.deps, token, session), session, "too soon to write");
      assert.equal(await stored(), before);
      let current = session;
      // A request every 11 hours keeps the session alive well past one idle window.
      for (let i = 0; i < 3; i++) {
        now += 11 * 60 * 60 * 1000;
        const live = await getSession(env.deps, token);
        assert.ok(live, `alive after ${now - signedIn} ms`);
        current = await renewSession(env.deps, token, live);
        assert.equal(current.expires_at, now + SESSION_IDLE_MS);
        assert.deepEqual(await getSession(env.deps, token), current);
      }
      assert.notEqual(await stored(), before);
      // Idle for a whole window ends it.
      now += SESSION_IDLE_MS;
      assert.equal(await getSession(env.deps, token), null);
      assert.equal(current.created_at, signedIn);
    });

    await t.step("renewal never passes the absolute cap", async () => {
      const signedIn = now;
      const { token } = await createSession(env.deps, "usr_7", null);
      let last = null;
      while (now < signedIn + SESSION_MAX_MS - 60 * 60 * 1000) {
        now += 60 * 60 * 1000;
        const live = await getSession(env.deps, token);
        assert.ok(live, "an hourly request keeps it alive until the cap");
        last = await renewSession(env.deps, token, live);
      }
      assert.ok(last && last.expires_at <= signedIn + SESSION_MAX_MS);
      now = signedIn + SESSION_MAX_MS - 1;
      assert.ok(await getSession(env.deps, token));
      now += 1;
      assert.equal(await getSession(env.deps, token), null, "over the cap, however active");
    });

    await t.step("a record stored with a later expiry still ends at the cap", async () => {
      const { token, session } = await createSession(env.deps, "usr_8", null);
      const key = keys.session(await sha256Hex(token));
      await env.deps.kv.set(key, { ...session, expires_at: now + 10 * SESSION_MAX_MS });
      now += SESSION_MAX_MS;
      assert.equal(await getSession(env.deps, token), null);
    });

    await t.step("sign-out deletes the session", async () => {
      const { token } = await createSession(env.deps, "usr_3", null);
      await deleteSession(env.deps, token);
      assert.equal(await getSession(env.deps, token), null);
      await deleteSession(env.deps, "not-a-token");
    });

    await t.step("switching workspace keeps the expiry", async () => {
      const { token, session } = await createSession(env.deps, "usr_4", "ws_a");
      assert.equal(await setSessionWorkspace(env.deps, token, "ws_b"), true);
      const after = await getSession(env.deps, token);
      assert.equal(after?.workspace_id, "ws_b");
      assert.equal(after?.expires_at, session.expires_at);
      await deleteSession(env.deps, token);
      assert.equal(await setSessionWorkspace(env.deps, token, "ws_c"), false);
    });

    await t.step("CSRF tokens compare exactly", async () => {
      const { session } = await createSession(env.deps, "usr_5", null);
      assert.equal(csrfMatches(session, session.csrf), true);
      assert.equal(csrfMatches(session, session.csrf.slice(0, -1) + "!"), false);
      assert.equal(csrfMatches(session, session.csrf + "x"), false);
      assert.equal(csrfMatches(session, null), false);
      assert.equal(csrfMatches(session, ""), false);
    });
  } finally {
    env.close();
  }
});

Deno.test("sessions - cookie", async (t) => {
  const https = { baseUrl: "https://forms.example.com" };
  const http = { baseUrl: "http://localhost:8000" };

  await t.step("__Host- prefix and Secure only on HTTPS", () => {
    assert.equal(sessionCookieName(https), "__Host-formwell_session");
    assert.equal(sessionCookieName(http), "formwell_session");
    const secure = sessionCookie(https, "tok");
    assert.match(secure, /^__Host-formwell_session=tok; /);
    for (const attr of ["Path=/", "HttpOnly", "SameSite=Lax", "Secure"]) {
      assert.ok(secure.split("; ").includes(attr), attr);
    }
    assert.ok(!secure.includes("Domain"));
    assert.ok(!sessionCookie(http, "tok").includes("Secure"));
  });

  await t.step("the cookie lasts as long as the absolute cap", () => {
    assert.ok(sessionCookie(http, "tok").includes(`Max-Age=${SESSION_MAX_MS / 1000}`));
  });

  await t.step("clearing sets Max-Age=0", () => {
    assert.ok(sessionCookie(http, null).includes("Max-Age=0"));
    assert.match(sessionCookie(http, null), /^formwell_session=;/);
  });

  await t.step("reads its own cookie among others", () => {
    assert.equal(readSessionToken(http, "a=1; formwell_session=xyz; b=2"), "xyz");
    assert.equal(readSessionToken(http, "xformwell_session=xyz"), undefined);
    assert.equal(readSessionToken(https, "formwell_session=xyz"), undefined);
    assert.equal(readSessionToken(https, "__Host-formwell_session=abc"), "abc");
    assert.equal(readSessionToken(http, undefined), undefined);
  });
});
