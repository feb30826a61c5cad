import assert from "node:assert/strict";
import { getForm, listFormIds } from "@/lib/forms/forms.ts";
import { SESSION_MAX_MS } from "@/lib/admin/sessions.ts";
import { createUser } from "@/lib/admin/users.ts";
import { getWorkspace } from "@/lib/workspaces/workspaces.ts";
import { FORM_TYPE, page, PASSWORD, post, setup, signIn } from "@/tests/admin_support.ts";
import { makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";

Deno.test("admin - sign-in, session cookie, sign-out", async (t) => {
  const env = await testEnv();
  try {
    const { form } = await setup(env);

    await t.step("pages need a session", async () => {
      const res = await env.request(`/admin/forms/${form.id}`);
      assert.equal(res.status, 303);
      assert.equal(
        res.headers.get("location"),
        `/admin/login?next=${encodeURIComponent(`/admin/forms/${form.id}`)}`,
      );
    });

    await t.step("a wrong password is 401 and sets no cookie", async () => {
      const res = await env.request("/admin/login", {
        method: "POST",
        headers: FORM_TYPE,
        body: "email=owner%40example.com&password=nope-nope",
      });
      assert.equal(res.status, 401);
      assert.equal(res.headers.get("set-cookie"), null);
      assert.match(await res.text(), /do not match an account/);
    });

    let cookie = "";
    await t.step("sign-in sets an HttpOnly SameSite=Lax cookie", async () => {
      const res = await env.request("/admin/login", {
        method: "POST",
        headers: FORM_TYPE,
        body: new URLSearchParams({
          email: "OWNER@example.com",
          password: PASSWORD,
          next: `/admin/forms/${form.id}`,
        }).toString(),
      });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), `/admin/forms/${form.id}`);
      const set = res.headers.get("set-cookie") ?? "";
      assert.match(set, /^formwell_session=[0-9A-Za-z]{43}; /);
      assert.match(set, /HttpOnly/);
      assert.match(set, /SameSite=Lax/);
      cookie = set.split(";")[0];
      const { res: ok, html } = await page(env, cookie, `/admin/forms/${form.id}`);
      assert.equal(ok.status, 200);
      assert.match(html, /Contact/);
    });

    await t.step("next never leaves the admin", async () => {
      for (const next of ["https://evil.example/", "//evil.example/admin", "/admin//evil"]) {
        const res = await env.request("/admin/login", {
          method: "POST",
          headers: FORM_TYPE,
          body: new URLSearchParams({ email: "owner@example.com", password: PASSWORD, next })
            .toString(),
        });
        assert.equal(res.headers.get("location"), "/admin/forms", next);
      }
    });

    await t.step("sign-out deletes the session server-side", async () => {
      const { csrf } = await page(env, cookie, "/admin/forms");
      const res = await post(env, cookie, "/admin/logout", { _csrf: csrf });
      assert.equal(res.status, 303);
      assert.match(res.headers.get("set-cookie") ?? "", /Max-Age=0/);
      // Replaying the old cookie no longer works.
      const after = await env.request("/admin/forms", { headers: { cookie } });
      assert.equal(after.status, 303);
      assert.match(after.headers.get("location") ?? "", /^\/admin\/login/);
    });
  } finally {
    env.close();
  }
});

Deno.test("admin - sign-in is rate limited per IP", async () => {
  const env = await testEnv({ RATE_LIMITS: '{"login":2}' });
  try {
    await setup(env);
    const attempt = (password: string, ip: string) =>
      env.request("/admin/login", {
        method: "POST",
        headers: FORM_TYPE,
        body: new URLSearchParams({ email: "owner@example.com", password }).toString(),
        ip,
      });
    assert.equal((await attempt("wrong-1", "198.51.100.1")).status, 401);
    assert.equal((await attempt("wrong-2", "198.51.100.1")).status, 401);
    // Even the right password is refused once the budget is spent.
    const limited = await attempt(PASSWORD, "198.51.100.1");
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("set-cookie"), null);
    assert.match(await limited.text(), /Too many sign-in attempts/);
    // Another IP is unaffected.
    assert.equal((await attempt(PASSWORD, "198.51.100.2")).status, 303);
  } finally {
    env.close();
  }
});

Deno.test("admin - CSRF and cross-site requests", async (t) => {
  const env = await testEnv();
  try {
    const { ws } = await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const { csrf } = await page(env, cookie, "/admin/forms/new");
    assert.match(csrf, /^[0-9A-Za-z]{32}$/);
    const def = {
      name: "Via admin",
      fields_json: JSON.stringify([{ name: "email", type: "email" }]),
      accepting: "on",
    };
    const before = (await listFormIds(env.deps, ws.id)).length;

    await t.step("a cross-site POST is rejected even with the token", async () => {
      const res = await post(env, cookie, "/admin/forms/new", { ...def, _csrf: csrf }, {
        origin: "https://evil.example",
        "sec-fetch-site": "cross-site",
      });
      assert.equal(res.status, 403);
      assert.match(await res.text(), /Cross-site request blocked/);
    });

    await t.step("a foreign Origin without Sec-Fetch-Site is rejected", async () => {
      const res = await post(env, cookie, "/admin/forms/new", { ...def, _csrf: csrf }, {
        origin: "https://evil.example",
      });
      assert.equal(res.status, 403);
    });

    await t.step("a same-site subdomain is rejected", async () => {
      const res = await post(env, cookie, "/admin/forms/new", { ...def, _csrf: csrf }, {
        "sec-fetch-site": "same-site",
      });
      assert.equal(res.status, 403);
    });

    await t.step("a missing or wrong token is rejected", async () => {
      assert.equal((await post(env, cookie, "/admin/forms/new", def)).status, 403);
      const wrong = await post(env, cookie, "/admin/forms/new", { ...def, _csrf: "x".repeat(32) });
      assert.equal(wrong.status, 403);
    });

    await t.step("the sign-in form refuses cross-site posts", async () => {
      const res = await env.request("/admin/login", {
        method: "POST",
        headers: { ...FORM_TYPE, "sec-fetch-site": "cross-site" },
        body: new URLSearchParams({ email: "owner@example.com", password: PASSWORD }).toString(),
      });
      assert.equal(res.status, 403);
      assert.equal(res.headers.get("set-cookie"), null);
    });

    await t.step("nothing was written; the same request from our page works", async () => {
      assert.equal((await listFormIds(env.deps, ws.id)).length, before);
      const ok = await post(env, cookie, "/admin/forms/new", { ...def, _csrf: csrf });
      assert.equal(ok.status, 303);
      assert.equal((await listFormIds(env.deps, ws.id)).length, before + 1);
    });
  } finally {
    env.close();
  }
});

Deno.test("admin - security headers", async () => {
  const env = await testEnv();
  try {
    const { form } = await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const responses = [
      await env.request("/admin/login"),
      await env.request("/admin/forms"), // redirect
      await env.request(`/admin/forms/${form.id}`, { headers: { cookie } }),
      await env.request("/admin/forms/fNOPE", { headers: { cookie } }), // error page
      await env.request(`/admin/forms/${form.id}/export.csv`, { headers: { cookie } }),
    ];
    for (const res of responses) {
      await res.body?.cancel();
      const csp = res.headers.get("content-security-policy") ?? "";
      assert.match(csp, /script-src 'self'/, `${res.url} ${res.status}`);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline/);
      assert.equal(res.headers.get("x-frame-options"), "DENY");
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.equal(res.headers.get("referrer-policy"), "same-origin");
      assert.equal(res.headers.get("cache-control"), "no-store");
    }
    assert.equal(responses[3].status, 404);
  } finally {
    env.close();
  }
});

Deno.test("admin - owner-only workspace actions", async (t) => {
  const env = await testEnv();
  try {
    const { ws } = await setup(env);
    const other = await makeWorkspace(env.deps, "pro");
    const otherForm = await makeForm(env.deps, other);
    await createUser(env.deps, {
      email: "member@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "owner",
    });
    const member = await signIn(env, "member@example.com");
    const owner = await signIn(env, "owner@example.com");

    await t.step("a member cannot manage workspaces", async () => {
      const { res, csrf } = await page(env, member, "/admin/workspaces");
      assert.equal(res.status, 403);
      const forms = await page(env, member, "/admin/forms");
      const attempt = await post(env, member, "/admin/workspaces", {
        _csrf: forms.csrf || csrf,
        action: "suspend",
        workspace_id: ws.id,
      });
      assert.equal(attempt.status, 403);
      assert.equal((await getWorkspace(env.deps, ws.id))?.suspended, false);
    });

    await t.step("a member sees no other workspace's forms, nor switches to it", async () => {
      const { res } = await page(env, member, `/admin/forms/${otherForm.id}`);
      assert.equal(res.status, 404);
      const { csrf } = await page(env, member, "/admin/forms");
      const sw = await post(env, member, "/admin/switch", { _csrf: csrf, workspace_id: other.id });
      assert.equal(sw.status, 404);
    });

    await t.step("the owner creates, re-plans and suspends", async () => {
      const { csrf, html } = await page(env, owner, "/admin/workspaces");
      assert.match(html, new RegExp(other.id));
      const created = await post(env, owner, "/admin/workspaces", {
        _csrf: csrf,
        action: "create",
        name: "Agency",
        plan: "business",
      });
      assert.equal(created.status, 303);
      const plan = await post(env, owner, "/admin/workspaces", {
        _csrf: csrf,
        action: "plan",
        workspace_id: other.id,
        plan: "free",
      });
      assert.equal(plan.status, 303);
      // Without the confirmation step's `confirmed`, a suspend only asks first.
      const ask = await post(env, owner, "/admin/workspaces", {
        _csrf: csrf,
        action: "suspend",
        workspace_id: other.id,
      });
      assert.equal(ask.status, 303);
      assert.equal(ask.headers.get("location"), `/admin/workspaces?suspend=${other.id}`);
      assert.equal((await getWorkspace(env.deps, other.id))?.suspended, false);
      const confirm = await page(env, owner, `/admin/workspaces?suspend=${other.id}`);
      assert.match(confirm.html, /go(es)? offline/);
      const suspend = await post(env, owner, "/admin/workspaces", {
        _csrf: csrf,
        action: "suspend",
        confirmed: "yes",
        workspace_id: other.id,
      });
      assert.equal(suspend.status, 303);
      const after = await getWorkspace(env.deps, other.id);
      assert.equal(after?.plan, "free");
      assert.equal(after?.suspended, true);
      const bad = await post(env, owner, "/admin/workspaces", {
        _csrf: csrf,
        action: "plan",
        workspace_id: other.id,
        plan: "platinum",
      });
      assert.equal(bad.status, 400);
      const list = await page(env, owner, "/admin/workspaces");
      assert.match(list.html, /Agency/);
    });

    await t.step("the owner switches workspace", async () => {
      const { csrf } = await page(env, owner, "/admin/forms");
      const sw = await post(env, owner, "/admin/switch", { _csrf: csrf, workspace_id: other.id });
      assert.equal(sw.status, 303);
      const { html } = await page(env, owner, "/admin/forms");
      assert.match(html, new RegExp(otherForm.id));
    });
  } finally {
    env.close();
  }
});

Deno.test("admin - session expiry: sliding renewal and where sign-in returns", async (t) => {
  let now = Date.UTC(2026, 0, 1);
  const env = await testEnv({}, { now: () => now });
  const HOUR = 60 * 60 * 1000;
  try {
    const { form } = await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const edit = `/admin/forms/${form.id}/edit`;
    const { csrf } = await page(env, cookie, edit);

    await t.step("an active admin stays signed in past one idle window", async () => {
      for (let i = 0; i < 3; i++) {
        now += 11 * HOUR;
        const { res } = await page(env, cookie, `/admin/forms/${form.id}`);
        assert.equal(res.status, 200, `${11 * (i + 1)} h after sign-in`);
      }
      // 33 h after sign-in, the long edit is still saved.
      const save = await post(env, cookie, edit, {
        _csrf: csrf,
        name: "Renamed late",
        fields_json: JSON.stringify(form.fields),
        captcha_provider: "none",
        accepting: "on",
      });
      assert.equal(save.status, 303);
      assert.equal((await getForm(env.deps, form.id))?.name, "Renamed late");
    });

    await t.step("a GET after expiry returns to the same page after sign-in", async () => {
      now += 13 * HOUR;
      const res = await env.request(edit, { headers: { cookie } });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), `/admin/login?next=${encodeURIComponent(edit)}`);
    });

    await t.step("a POST after expiry returns to the page the form was on", async () => {
      for (const path of ["/admin/logout", "/admin/switch", edit]) {
        const res = await post(env, cookie, path, { _csrf: csrf }, {
          origin: "http://localhost",
          "sec-fetch-site": "same-origin",
          referer: `http://localhost${edit}?tab=1`,
        });
        assert.equal(res.status, 303, path);
        const next = `${edit}?tab=1`;
        assert.equal(res.headers.get("location"), `/admin/login?next=${encodeURIComponent(next)}`);
      }
      // Signing in follows it to a page that exists (not the POST-only path).
      const login = await env.request("/admin/login", {
        method: "POST",
        headers: FORM_TYPE,
        body: new URLSearchParams({
          email: "owner@example.com",
          password: PASSWORD,
          next: `${edit}?tab=1`,
        }).toString(),
      });
      const fresh = (login.headers.get("set-cookie") ?? "").split(";")[0];
      const back = await env.request(login.headers.get("location") ?? "", {
        headers: { cookie: fresh },
      });
      assert.equal(back.status, 200);
      assert.match(await back.text(), /Save form/);
    });

    await t.step("without a same-origin admin Referer a POST gets no next", async () => {
      for (
        const referer of [
          undefined,
          "https://evil.example/admin/forms",
          "http://localhost/f/abc",
          "http://localhost/admin/login?next=/admin/keys",
          "not a url",
        ]
      ) {
        const headers: Record<string, string> = {
          origin: "http://localhost",
          "sec-fetch-site": "same-origin",
        };
        if (referer) headers.referer = referer;
        const res = await post(env, cookie, "/admin/switch", { _csrf: csrf }, headers);
        assert.equal(res.status, 303, String(referer));
        assert.equal(res.headers.get("location"), "/admin/login", String(referer));
      }
    });

    await t.step("activity never extends a session past the absolute cap", async () => {
      const signedIn = now;
      const active = await signIn(env, "owner@example.com");
      // A request every 10 hours would keep it alive forever without the cap.
      for (let at = 10 * HOUR; at < SESSION_MAX_MS; at += 10 * HOUR) {
        now = signedIn + at;
        const { res } = await page(env, active, "/admin/forms");
        assert.equal(res.status, 200);
      }
      now = signedIn + SESSION_MAX_MS;
      const res = await env.request("/admin/forms", { headers: { cookie: active } });
      assert.equal(res.status, 303);
      await res.body?.cancel();
    });
  } finally {
    env.close();
  }
});
