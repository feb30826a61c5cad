import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "@/lib/config.ts";
import { uploadOrigins } from "@/lib/ui/csp.ts";
import type { FormDefinition } from "@/lib/schemas.ts";
import { CONTACT_FORM, makeForm, makeKey, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { FORM_TYPE, page, PASSWORD, post, setup, signIn } from "@/tests/admin_support.ts";

/** The CSP directive `name`'s sources, or null when absent. */
function directive(csp: string, name: string): string[] | null {
  const part = csp.split(";").map((p) => p.trim()).find((p) => p.split(" ")[0] === name);
  return part ? part.split(" ").slice(1) : null;
}

/** A header value with no control, space or non-ASCII character. */
const PRINTABLE_ASCII = /^[!-~]*$/;

const PROVIDER_HOSTS = /cloudflare|hcaptcha|google|gstatic|recaptcha/;

Deno.test("pages - control characters never reach a Location header", async (t) => {
  const env = await testEnv();
  try {
    const { form } = await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const hostile = ["/admin?\r\nX:1", "/admin/forms\n", "/admin/\u0000", "/admin/forms?q=é✓"];

    await t.step("sign-in page: GET and POST with a hostile next", async () => {
      const shown = await env.request(`/admin/login?next=${encodeURIComponent(hostile[0])}`);
      assert.equal(shown.status, 200);
      assert.match(await shown.text(), /name="next" value="\/admin\/forms"/);
      for (const next of hostile) {
        const res = await env.request("/admin/login", {
          method: "POST",
          headers: FORM_TYPE,
          body: new URLSearchParams({ email: "owner@example.com", password: PASSWORD, next })
            .toString(),
        });
        await res.body?.cancel();
        assert.equal(res.status, 303, JSON.stringify(next));
        const location = res.headers.get("location") ?? "";
        assert.match(location, PRINTABLE_ASCII);
        assert.ok(location.startsWith("/admin/"), location);
      }
    });

    await t.step("signed in, a hostile next falls back; a non-ASCII one is encoded", async () => {
      const res = await env.request(`/admin/login?next=${encodeURIComponent(hostile[0])}`, {
        headers: { cookie },
      });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), "/admin/forms");
      const encoded = await env.request(`/admin/login?next=${encodeURIComponent(hostile[3])}`, {
        headers: { cookie },
      });
      assert.equal(encoded.status, 303);
      assert.equal(encoded.headers.get("location"), "/admin/forms?q=%C3%A9%E2%9C%93");
    });

    await t.step("the submissions list's back= cannot inject a header", async () => {
      const { csrf } = await page(env, cookie, `/admin/forms/${form.id}/submissions`);
      const list = `/admin/forms/${form.id}/submissions`;
      for (const back of ["?mode=live\r\nX-Evil: 1", "?\u0000", "/../../keys", "?q=ü"]) {
        const res = await post(env, cookie, list, { _csrf: csrf, back });
        await res.body?.cancel();
        assert.equal(res.status, 303, JSON.stringify(back));
        const location = res.headers.get("location") ?? "";
        assert.ok(location.startsWith(list), location);
        assert.match(location, PRINTABLE_ASCII);
      }
    });

    await t.step("the no-JS post's _redirect never puts raw input in Location", async () => {
      for (const target of ["/thanks\r\nX-Evil: 1", "/thanks?\u0000a=é", "http://localhost/a\rb"]) {
        const res = await env.request(`/api/v1/submit/p/${form.id}`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
          body: new URLSearchParams({
            name: "Ann",
            email: "ann@example.com",
            _redirect: target,
          }).toString(),
        });
        await res.body?.cancel();
        assert.equal(res.status, 303, JSON.stringify(target));
        assert.match(res.headers.get("location") ?? "", PRINTABLE_ASCII);
      }
    });
  } finally {
    env.close();
  }
});

Deno.test("pages - hosted CSP allows only the form's CAPTCHA provider", async (t) => {
  const env = await testEnv({ BASE_URL: "http://forms.test" });
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const csp = async (def: FormDefinition) => {
      const form = await makeForm(env.deps, ws, def);
      const res = await env.request(`/f/${form.id}`);
      await res.body?.cancel();
      assert.equal(res.status, 200);
      return res.headers.get("content-security-policy") ?? "";
    };

    await t.step("no CAPTCHA: no provider hosts, strict defaults, posts to us", async () => {
      const policy = await csp({
        ...CONTACT_FORM,
        redirect: { success: "https://site.example/thanks" },
        allowed_origins: ["https://other.example"],
      });
      assert.deepEqual(directive(policy, "default-src"), ["'none'"]);
      assert.doesNotMatch(policy, PROVIDER_HOSTS);
      assert.deepEqual(directive(policy, "script-src"), ["'self'"]);
      assert.deepEqual(directive(policy, "connect-src"), ["'self'"]);
      assert.deepEqual(directive(policy, "frame-src"), ["'none'"]);
      const action = directive(policy, "form-action") ?? [];
      assert.ok(action.includes("'self'"));
      assert.ok(action.includes("https://site.example"), policy);
      assert.ok(action.includes("https://other.example"), policy);
      assert.deepEqual(directive(policy, "base-uri"), ["'none'"]);
    });

    await t.step("Turnstile: Cloudflare only", async () => {
      const policy = await csp({
        ...CONTACT_FORM,
        captcha: { provider: "turnstile", siteKey: "k", secret: "s" },
      });
      assert.match(directive(policy, "script-src")!.join(" "), /challenges\.cloudflare\.com/);
      assert.match(directive(policy, "frame-src")!.join(" "), /challenges\.cloudflare\.com/);
      assert.doesNotMatch(policy, /google|hcaptcha|gstatic/);
    });

    await t.step("reCAPTCHA: Google only", async () => {
      const policy = await csp({
        ...CONTACT_FORM,
        captcha: { provider: "recaptcha", siteKey: "k", secret: "s" },
      });
      assert.match(directive(policy, "script-src")!.join(" "), /www\.google\.com/);
      assert.doesNotMatch(policy, /cloudflare|hcaptcha/);
    });

    await t.step("ALTCHA: our origin plus blob: workers, no third party", async () => {
      const policy = await csp({ ...CONTACT_FORM, captcha: { provider: "altcha" } });
      assert.deepEqual(directive(policy, "worker-src"), ["blob:"]);
      assert.doesNotMatch(policy, PROVIDER_HOSTS);
    });

    await t.step("a form with a file field may upload to the storage's origin", async () => {
      const policy = await csp({
        ...CONTACT_FORM,
        fields: [...(CONTACT_FORM.fields ?? []), { name: "cv", type: "file" }],
      });
      assert.deepEqual(directive(policy, "connect-src"), ["'self'", "http://forms.test"]);
    });

    await t.step("a page without a form posts nowhere", async () => {
      const res = await env.request("/f/fNOPE");
      await res.body?.cancel();
      assert.equal(res.status, 404);
      const policy = res.headers.get("content-security-policy") ?? "";
      assert.deepEqual(directive(policy, "form-action"), ["'none'"]);
      assert.deepEqual(directive(policy, "default-src"), ["'none'"]);
    });
  } finally {
    env.close();
  }
});

Deno.test("pages - the admin's CSP is strict by default", async () => {
  const env = await testEnv();
  try {
    const res = await env.request("/admin/login");
    await res.body?.cancel();
    const policy = res.headers.get("content-security-policy") ?? "";
    assert.deepEqual(directive(policy, "default-src"), ["'none'"]);
    assert.deepEqual(directive(policy, "form-action"), ["'self'"]);
    assert.deepEqual(directive(policy, "frame-ancestors"), ["'none'"]);
  } finally {
    env.close();
  }
});

Deno.test("pages - a separate PUBLIC_BASE_URL", async (t) => {
  const env = await testEnv({
    BASE_URL: "http://admin.test",
    PUBLIC_BASE_URL: "http://forms.test/",
  });
  try {
    const { form } = await setup(env);
    await t.step("the admin answers 404 on the public host, and works on its own", async () => {
      for (const path of ["/admin/login", "/admin/forms", "/admin"]) {
        const res = await env.app.request(`http://forms.test${path}`);
        assert.equal(res.status, 404, path);
        assert.deepEqual(await res.json(), { error: "Not found.", code: "not_found" });
      }
      const login = await env.app.request("http://forms.test/admin/login", {
        method: "POST",
        headers: FORM_TYPE,
        body: new URLSearchParams({ email: "owner@example.com", password: PASSWORD }).toString(),
      });
      await login.body?.cancel();
      assert.equal(login.status, 404);
      assert.equal(login.headers.get("set-cookie"), null);
      const own = await env.app.request("http://admin.test/admin/login");
      await own.body?.cancel();
      assert.equal(own.status, 200);
    });

    await t.step("hosted pages are served on the public host", async () => {
      const res = await env.app.request(`http://forms.test/f/${form.id}`);
      await res.body?.cancel();
      assert.equal(res.status, 200);
    });

    await t.step("the admin's links to the hosted form use the public base", async () => {
      const login = await env.app.request("http://admin.test/admin/login", {
        method: "POST",
        headers: { ...FORM_TYPE, "x-forwarded-for": "203.0.113.9" },
        body: new URLSearchParams({ email: "owner@example.com", password: PASSWORD }).toString(),
      });
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
      const res = await env.app.request(`http://admin.test/admin/forms/${form.id}`, {
        headers: { cookie, "x-forwarded-for": "203.0.113.9" },
      });
      const html = await res.text();
      assert.equal(res.status, 200);
      assert.ok(html.includes(`http://forms.test/f/${form.id}`), "hosted link on the public base");
      assert.ok(!html.includes(`http://admin.test/f/${form.id}`));
    });

    await t.step("a browser on the public origin may use the public API", async () => {
      const res = await env.app.request(`http://forms.test/api/v1/forms/p/${form.id}`, {
        headers: { origin: "http://forms.test", "x-forwarded-for": "203.0.113.9" },
      });
      await res.body?.cancel();
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("access-control-allow-origin"), "http://forms.test");
    });

    await t.step(
      "a form limited to other origins still takes posts from its hosted page",
      async () => {
        const ws = await makeWorkspace(env.deps);
        const limited = await makeForm(env.deps, ws, {
          ...CONTACT_FORM,
          allowed_origins: ["https://example.com"],
        });
        const submit = (origin: string) =>
          env.app.request(`http://forms.test/api/v1/submit/p/${limited.id}`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              origin,
              "x-forwarded-for": "203.0.113.10",
            },
            body: JSON.stringify({ data: { name: "Ada", email: "ada@example.com" } }),
          });
        const own = await submit("http://forms.test");
        assert.equal(own.status, 201, await own.text());
        const foreign = await submit("https://elsewhere.example");
        assert.equal(foreign.status, 403);
        assert.equal((await foreign.json()).code, "origin_not_allowed");
      },
    );
  } finally {
    env.close();
  }
});

Deno.test("pages - PUBLIC_BASE_URL is validated and defaults to BASE_URL", () => {
  const base = { SECRET: "x".repeat(32) };
  assert.equal(
    loadConfig({ ...base, BASE_URL: "https://a.example" }).publicBaseUrl,
    "https://a.example",
  );
  assert.equal(
    loadConfig({ ...base, PUBLIC_BASE_URL: "https://f.example/" }).publicBaseUrl,
    "https://f.example",
  );
  for (const bad of ["not a url", "ftp://f.example"]) {
    assert.throws(
      () => loadConfig({ ...base, PUBLIC_BASE_URL: bad }),
      (err: unknown) => err instanceof ConfigError && /PUBLIC_BASE_URL/.test(err.message),
    );
  }
});

Deno.test("pages - response headers: HSTS, no-store, nosniff, request ids", async (t) => {
  await t.step("HSTS only when BASE_URL is https", async () => {
    const https = await testEnv({ BASE_URL: "https://forms.example" });
    const http = await testEnv({ BASE_URL: "http://forms.example" });
    try {
      for (const path of ["/healthz", "/admin/login", "/api/v1/nope"]) {
        const on = await https.request(path);
        await on.body?.cancel();
        assert.match(on.headers.get("strict-transport-security") ?? "", /max-age=\d{7,}/, path);
        const off = await http.request(path);
        await off.body?.cancel();
        assert.equal(off.headers.get("strict-transport-security"), null, path);
      }
    } finally {
      https.close();
      http.close();
    }
  });

  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    const key = await makeKey(env.deps, ws);
    await t.step("no-store on every Server Data API response, errors included", async () => {
      const auth = { authorization: `Bearer ${key}` };
      for (
        const [path, headers] of [
          ["/api/v1/server/forms", auth],
          [`/api/v1/server/forms/${form.id}/submissions`, auth],
          ["/api/v1/server/forms", {}],
          ["/api/v1/server/forms/fNOPE/submissions", auth],
        ] as const
      ) {
        const res = await env.request(path, { headers });
        await res.body?.cancel();
        assert.equal(res.headers.get("cache-control"), "no-store", `${path} ${res.status}`);
      }
    });

    await t.step("nosniff on /static, island bundles and the API", async () => {
      for (const path of ["/static/style.css", "/_islands/HostedForm.js", "/healthz"]) {
        const res = await env.request(path);
        await res.body?.cancel();
        assert.equal(res.status, 200, path);
        assert.equal(res.headers.get("x-content-type-options"), "nosniff", path);
      }
    });

    await t.step("X-Request-Id on pages built as plain responses", async () => {
      for (
        const path of [`/f/${form.id}`, `/f/${form.id}/thanks`, "/f/fNOPE", "/static/nope.css"]
      ) {
        const res = await env.request(path);
        await res.body?.cancel();
        assert.match(res.headers.get("x-request-id") ?? "", /^req_[A-Za-z0-9]{20}$/, path);
      }
    });
  } finally {
    env.close();
  }
});

Deno.test("pages - admin POSTs are capped at the body limit, with the admin's page", async () => {
  const env = await testEnv();
  try {
    await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const { csrf } = await page(env, cookie, "/admin/forms/new");
    const big = await post(env, cookie, "/admin/forms/new", {
      _csrf: csrf,
      pad: "x".repeat(300 * 1024),
    });
    assert.equal(big.status, 413);
    assert.match(big.headers.get("content-type") ?? "", /text\/html/);
    assert.match(await big.text(), /too large/);
  } finally {
    env.close();
  }
});

Deno.test("pages - upload origins for the hosted CSP follow the storage", () => {
  const base = { SECRET: "x".repeat(32), BASE_URL: "https://admin.example" };
  const local = loadConfig({ ...base, PUBLIC_BASE_URL: "https://forms.example/x" });
  assert.deepEqual(uploadOrigins(local), ["https://forms.example"]);
  const s3 = { ...base, STORAGE: "s3", S3_BUCKET: "files", S3_REGION: "eu-west-1" };
  assert.deepEqual(uploadOrigins(loadConfig(s3)), [
    "https://s3.eu-west-1.amazonaws.com",
    "https://files.s3.eu-west-1.amazonaws.com",
  ]);
  const minio = loadConfig({
    ...s3,
    S3_ENDPOINT: "http://127.0.0.1:9000/",
    S3_FORCE_PATH_STYLE: "1",
  });
  assert.deepEqual(uploadOrigins(minio), ["http://127.0.0.1:9000"]);
});
