import assert from "node:assert/strict";
import { listAccountMail } from "@/lib/admin/mail.ts";
import { RESET_RESEND_MS, RESET_TTL_MS } from "@/lib/admin/reset.ts";
import { keys } from "@/lib/kv/keys.ts";
import { page, PASSWORD, post, signIn } from "@/tests/admin_support.ts";
import {
  accountEnv,
  captureLog,
  clock,
  loggedLink,
  mailedLink,
  member,
  postPublic,
} from "@/tests/account_support.ts";
import { makeWorkspace, testEnv } from "@/tests/helpers.ts";

Deno.test("account - password change and reset", async (t) => {
  const time = clock();
  const env = await accountEnv({}, { now: time.now });
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    await member(env, ws, "me@example.com", "admin");
    const here = await signIn(env, "me@example.com");
    const elsewhere = await signIn(env, "me@example.com");
    time.advance(1);

    let current = "";
    await t.step("a change needs the current password and a matching pair", async () => {
      const { csrf } = await page(env, here, "/admin/account");
      const wrong = await post(env, here, "/admin/account", {
        _csrf: csrf,
        current_password: "wrong password",
        new_password: "fresh password",
        confirm_password: "fresh password",
      });
      assert.equal(wrong.status, 400);
      assert.match(await wrong.text(), /current password is not right/);
      const differ = await post(env, here, "/admin/account", {
        _csrf: csrf,
        current_password: PASSWORD,
        new_password: "fresh password",
        confirm_password: "fresh passwort",
      });
      assert.equal(differ.status, 400);
      const ok = await post(env, here, "/admin/account", {
        _csrf: csrf,
        current_password: PASSWORD,
        new_password: "fresh password",
        confirm_password: "fresh password",
      });
      assert.equal(ok.status, 303);
      assert.equal(ok.headers.get("location"), "/admin/account?notice=password_changed");
      current = (ok.headers.get("set-cookie") ?? "").split(";")[0];
      assert.notEqual(current, here);
    });

    await t.step("after a change this browser stays in, every other session is out", async () => {
      assert.equal((await page(env, current, "/admin/account")).res.status, 200);
      for (const old of [here, elsewhere]) {
        const res = await env.request("/admin/account", { headers: { cookie: old } });
        assert.equal(res.status, 303);
        assert.match(res.headers.get("location") ?? "", /^\/admin\/login/);
      }
    });

    const ask = (email: string) =>
      postPublic(env, "/admin/reset", { email }).then(async (r) => ({
        status: r.status,
        location: r.headers.get("location"),
        cookie: r.headers.get("set-cookie"),
        body: await r.text(),
      }));

    await t.step("asking for a reset answers the same for any email", async () => {
      const known = await ask("ME@example.com");
      const unknown = await ask("nobody@example.com");
      assert.deepEqual(known, unknown);
      assert.equal(known.status, 303);
      assert.equal(known.location, "/admin/reset?sent=1");
      const answer = await env.request("/admin/reset?sent=1");
      assert.match(await answer.text(), /If an account uses that email/);
      await mailedLink(env, "me@example.com", "reset");
      assert.equal((await listAccountMail(env.deps, "nobody@example.com")).length, 0);
    });

    await t.step("asking again within a minute sends nothing; later, a new link", async () => {
      const first = await mailedLink(env, "me@example.com", "reset");
      const user = (await env.deps.kv.get<string>(keys.userByEmail("me@example.com"))).value!;
      const newest = async () => (await env.deps.kv.get(keys.passwordResetByUser(user))).value;
      const before = await newest();
      await ask("me@example.com");
      assert.deepEqual(await newest(), before, "no new link was made");
      time.advance(RESET_RESEND_MS);
      await ask("me@example.com");
      const second = await mailedLink(env, "me@example.com", "reset", 2);
      assert.equal((await listAccountMail(env.deps, "me@example.com")).length, 2);
      assert.notEqual(first, second);
      assert.equal((await env.request(first)).status, 404, "the older link died");
      assert.equal((await env.request(second)).status, 200);
    });

    await t.step("a reset link works once; sessions end; the new password signs in", async () => {
      const link = await mailedLink(env, "me@example.com", "reset", 2);
      const res = await postPublic(env, link, {
        new_password: "reset password",
        confirm_password: "reset password",
      });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), "/admin/login?notice=password_reset");
      const again = await postPublic(env, link, {
        new_password: "reset again!",
        confirm_password: "reset again!",
      });
      assert.equal(again.status, 404);
      assert.match(await again.text(), /does not work any more/);
      const old = await env.request("/admin/account", { headers: { cookie: current } });
      assert.equal(old.status, 303, "the session from before the reset is over");
      const signIn = (password: string) =>
        postPublic(env, "/admin/login", { email: "me@example.com", password });
      assert.equal((await signIn("fresh password")).status, 401);
      assert.equal((await signIn("reset password")).status, 303);
    });

    await t.step("a reset link expires after 30 minutes", async () => {
      time.advance(RESET_RESEND_MS);
      await ask("me@example.com");
      const link = await mailedLink(env, "me@example.com", "reset", 3);
      time.advance(RESET_TTL_MS + 1);
      assert.equal((await env.request(link)).status, 404);
      const res = await postPublic(env, link, {
        new_password: "too late!!",
        confirm_password: "too late!!",
      });
      assert.equal(res.status, 404);
    });

    await t.step("a password change voids a pending reset link", async () => {
      time.advance(RESET_RESEND_MS);
      await ask("me@example.com");
      const link = await mailedLink(env, "me@example.com", "reset", 4);
      const cookie = (await postPublic(env, "/admin/login", {
        email: "me@example.com",
        password: "reset password",
      })).headers.get("set-cookie")!.split(";")[0];
      time.advance(1);
      const { csrf } = await page(env, cookie, "/admin/account");
      const ok = await post(env, cookie, "/admin/account", {
        _csrf: csrf,
        current_password: "reset password",
        new_password: "changed again",
        confirm_password: "changed again",
      });
      assert.equal(ok.status, 303);
      assert.equal((await env.request(link)).status, 404);
    });

    await t.step("malformed tokens are a plain 404 page", async () => {
      for (
        const path of [
          "/admin/reset/short",
          "/admin/invite/%00%0d%0a",
          "/admin/reset/" + "a".repeat(43),
        ]
      ) {
        const res = await env.request(path);
        assert.equal(res.status, 404, path);
        await res.body?.cancel();
      }
    });
  } finally {
    await env.stop();
  }
});

Deno.test("account - the reset page says where the link went, the same for any email", async (t) => {
  await t.step("no SMTP: the server log and the Outbox, never the inbox", async () => {
    const env = await accountEnv();
    try {
      const ws = await makeWorkspace(env.deps, "starter");
      await member(env, ws, "me@example.com", "admin");
      const form = await (await env.request("/admin/reset")).text();
      assert.match(form, /sends no email/);
      assert.match(form, /server log/);
      assert.match(form, /Outbox/);
      assert.match(form, /user reset-password/);
      let known = "";
      let unknown = "";
      const lines = await captureLog(async () => {
        for (const email of ["me@example.com", "nobody@example.com"]) {
          const res = await postPublic(env, "/admin/reset", { email });
          assert.equal(res.status, 303);
          const body = await (await env.request(res.headers.get("location")!)).text();
          if (email === "me@example.com") known = body;
          else unknown = body;
        }
      });
      assert.equal(known, unknown);
      assert.match(known, /in the server log/);
      assert.match(known, /Outbox/);
      assert.doesNotMatch(known, /emailed it/);
      // One labelled line, for the account only, carrying the link the Outbox has.
      assert.equal(lines.length, 1, lines.join("\n"));
      const logged = loggedLink(lines, "me@example.com");
      assert.equal(logged.kind, "password_reset");
      assert.match(logged.msg, /^account mail not sent \(no SMTP_URL\)/);
      assert.ok(logged.url.endsWith(await mailedLink(env, "me@example.com", "reset")));
    } finally {
      await env.stop();
    }
  });

  await t.step("SMTP: the email, and nothing in the log", async () => {
    // No job runner: the mail job waits in the queue, nothing is sent anywhere.
    const env = await testEnv({ SMTP_URL: "smtp://127.0.0.1:9" });
    try {
      const ws = await makeWorkspace(env.deps, "starter");
      await member(env, ws, "me@example.com", "admin");
      assert.doesNotMatch(await (await env.request("/admin/reset")).text(), /server log/);
      const lines = await captureLog(async () => {
        const res = await postPublic(env, "/admin/reset", { email: "me@example.com" });
        const body = await (await env.request(res.headers.get("location")!)).text();
        assert.match(body, /we emailed it a link/);
        assert.doesNotMatch(body, /server log/);
      });
      assert.deepEqual(lines, []);
    } finally {
      env.close();
    }
  });
});
