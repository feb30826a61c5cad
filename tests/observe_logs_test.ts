/**
 * A real `main.ts` with `LOG_FORMAT=json`: every line is one JSON object, and no secret
 * (API key, session cookie, webhook secret, `SECRET`, passwords) appears anywhere in the log
 * after key auth, admin sign-in, a webhook with a secret, a failing SMTP and bad requests.
 */
import assert from "node:assert/strict";
import { freePort, within } from "./processes.ts";
import { OWNER, PASSWORD, prepareKv, SECRET, startLogged } from "./observe_support.ts";

const SMTP_PASSWORD = "smtp-pass-0123456789";

Deno.test("logs - JSON lines, and no secret in a whole run's log", async () => {
  const hooks: Request[] = [];
  const receiver = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => {
      hooks.push(req);
      return new Response("ok");
    },
  );
  const p = await prepareKv({
    name: "Contact",
    fields: [
      { name: "name", type: "text", required: true },
      { name: "email", type: "email", required: true },
    ],
    notifications: { emails: ["owner@example.com"] },
  } as never);
  // Nothing listens there: every SMTP attempt fails.
  const smtpPort = freePort();
  const server = await startLogged(p, {
    LOG_FORMAT: "json",
    LOG_REQUESTS: "1",
    SMTP_URL: `smtp://mailer:${SMTP_PASSWORD}@127.0.0.1:${smtpPort}`,
    EMAIL_RETRY_DELAYS: "50",
    WEBHOOK_ALLOW_PRIVATE: "1",
    ADMIN_PASSWORD: PASSWORD,
  });
  let cookieValue = "";
  let webhookSecret = "";
  try {
    const auth = { Authorization: `Bearer ${p.key}`, "Content-Type": "application/json" };
    const submitUrl = `${server.url}/api/v1/submit/p/${p.form.id}`;
    // A webhook with a secret, created through the API (the secret is in its response only).
    const created = await fetch(`${server.url}/api/v1/server/webhooks`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        url: `http://127.0.0.1:${receiver.addr.port}/hook`,
        forms: [p.form.id],
      }),
    });
    assert.equal(created.status, 201);
    webhookSecret = (await created.json()).webhook.secret;
    assert.match(webhookSecret, /^whsec_/);
    // Key auth, and a submission that notifies by email (SMTP fails) and by webhook.
    const ok = await fetch(submitUrl, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ data: { name: "Ada", email: "ada@example.com" } }),
    });
    assert.equal(ok.status, 201);
    await ok.body?.cancel();
    // Bad requests: malformed JSON, a wrong key, a key in the wrong place, an unknown form.
    const bad = [
      fetch(submitUrl, { method: "POST", headers: auth, body: "{" }),
      fetch(submitUrl, {
        method: "POST",
        headers: { ...auth, Authorization: `Bearer ${p.key.slice(0, -1)}x` },
        body: "{}",
      }),
      fetch(`${server.url}/api/v1/server/forms?key=${p.key}`, {
        headers: { Authorization: `Basic ${btoa(`x:${p.key}`)}` },
      }),
      fetch(`${server.url}/api/v1/submit/p/frm_nope`, {
        method: "POST",
        headers: auth,
        body: "{}",
      }),
      fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${SECRET}` } }),
    ];
    for (const res of await Promise.all(bad)) {
      assert.ok(res.status >= 400 && res.status < 500, String(res.status));
      await res.body?.cancel();
    }
    // Admin sign-in: a wrong password, then the right one, then a page with the cookie.
    const login = (password: string) =>
      fetch(`${server.url}/admin/login`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.url },
        body: new URLSearchParams({ email: OWNER, password }).toString(),
        redirect: "manual",
      });
    const wrong = await login("not the password at all");
    assert.ok(wrong.status >= 200 && wrong.status < 500);
    await wrong.body?.cancel();
    const signed = await login(PASSWORD);
    assert.equal(signed.status, 303);
    await signed.body?.cancel();
    const cookie = (signed.headers.get("set-cookie") ?? "").split(";")[0];
    cookieValue = cookie.slice(cookie.indexOf("=") + 1);
    assert.ok(cookieValue.length >= 16, cookie);
    const admin = await fetch(`${server.url}/admin`, { headers: { cookie }, redirect: "manual" });
    // Signed in: the dashboard, or a redirect onward that is not the sign-in page.
    assert.ok(
      admin.status === 200 || !/login/.test(admin.headers.get("location") ?? "login"),
      `${admin.status} ${admin.headers.get("location")}`,
    );
    await admin.body?.cancel();
    // The webhook arrived, and the email failed for good (logged as a warning).
    const done = await within(
      30_000,
      () => Promise.resolve(hooks.length >= 1 && server.output().includes('"email failed"')),
    );
    assert.ok(done !== null, `hooks: ${hooks.length}; log:\n${server.output()}`);
  } finally {
    await server.stop();
    await receiver.shutdown();
  }
  const log = server.output();
  const lines = log.split("\n").filter((l) => l.trim() !== "");
  assert.ok(lines.length >= 2, log);
  for (const line of lines) {
    const o = JSON.parse(line);
    assert.equal(typeof o.time, "string", line);
    assert.ok(["debug", "info", "warn", "error"].includes(o.level), line);
    assert.equal(typeof o.msg, "string", line);
  }
  assert.ok(lines.some((l) => JSON.parse(l).msg === "email failed"));
  // One line per request, each with its request id and route pattern, never a raw path.
  const requests = lines.map((l) => JSON.parse(l)).filter((o) => o.msg === "request");
  assert.ok(requests.length >= 10, String(requests.length));
  for (const r of requests) {
    assert.match(r.request_id, /^req_/);
    assert.ok(!r.route.includes(p.form.id), r.route);
  }
  const secrets = {
    "API key": p.key,
    "session cookie": cookieValue,
    "webhook secret": webhookSecret,
    "webhook secret body": webhookSecret.replace(/^whsec_/, ""),
    SECRET,
    "SMTP password": SMTP_PASSWORD,
    "admin password": PASSWORD,
  };
  for (const [name, value] of Object.entries(secrets)) {
    assert.ok(value.length >= 8, name);
    assert.ok(!log.includes(value), `${name} found in the log`);
  }
  await Deno.remove(p.dir, { recursive: true });
});
