import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import type { Form, FormDefinition, Submission } from "@/lib/schemas.ts";
import {
  CONTACT_FORM,
  makeForm,
  makeWorkspace,
  recount,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { FAKE_SECRET, startFakeSiteverify } from "@/tests/fake_siteverify.ts";
import { newPageKey } from "@/routes/f/_form_page.tsx";

const BASE = "http://forms.test";
const LIMITS = JSON.stringify({ submit: 100_000 });

function post(
  env: TestEnv,
  form: Pick<Form, "id">,
  pairs: [string, string][],
  headers: Record<string, string> = {},
): Promise<Response> {
  return env.request(`/api/v1/submit/p/${form.id}`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      accept: "text/html,application/xhtml+xml,*/*;q=0.8", // as a browser navigation sends
      ...headers,
    },
    body: new URLSearchParams(pairs).toString(),
  });
}

const VALID: [string, string][] = [["name", "Ada"], ["email", "ada@example.com"]];

/** The 303 Location, parsed (relative locations against BASE). */
async function location(res: Response): Promise<URL> {
  await res.body?.cancel();
  assert.equal(res.status, 303);
  return new URL(res.headers.get("location")!, BASE);
}

async function stored(env: TestEnv, form: Form, id: string): Promise<Submission> {
  const sub = await readSubmission(env.deps.kv, form.id, id);
  assert.ok(sub, `submission ${id} stored`);
  return sub;
}

async function setup(def: FormDefinition = CONTACT_FORM, env: Record<string, string> = {}) {
  const t = await testEnv({ BASE_URL: BASE, RATE_LIMITS: LIMITS, ...env });
  const ws = await makeWorkspace(t.deps);
  const form = await makeForm(t.deps, ws, def);
  return { t, form };
}

const WITH_REDIRECTS: FormDefinition = {
  ...CONTACT_FORM,
  allowed_origins: ["https://shop.example"],
  redirect: { success: "https://shop.example/thanks", error: "https://shop.example/oops?x=1" },
};

Deno.test("form post - success redirects", async (t) => {
  const { t: env, form } = await setup({
    ...CONTACT_FORM,
    allowed_origins: ["https://shop.example"],
  });
  try {
    await t.step("no redirect: 303 to the hosted thank-you page with submission_id", async () => {
      const loc = await location(await post(env, form, VALID));
      assert.equal(loc.pathname, `/f/${form.id}/thanks`);
      const sub = await stored(env, form, loc.searchParams.get("submission_id")!);
      assert.deepEqual(sub.fields, { name: "Ada", email: "ada@example.com" });
    });
    await t.step("_redirect same-origin (relative and absolute) is followed", async () => {
      for (const target of ["/done?a=1#top", `${BASE}/done?a=1#top`]) {
        const loc = await location(await post(env, form, [...VALID, ["_redirect", target]]));
        assert.equal(loc.origin, BASE);
        assert.equal(loc.pathname, "/done");
        assert.equal(loc.searchParams.get("a"), "1");
        assert.equal(loc.hash, "#top");
        assert.match(loc.searchParams.get("submission_id")!, /^sub_/);
      }
    });
    await t.step("redirect (no underscore) to an allowed origin is followed", async () => {
      const res = await post(env, form, [...VALID, ["redirect", "https://shop.example/ok"]]);
      const loc = await location(res);
      assert.equal(`${loc.origin}${loc.pathname}`, "https://shop.example/ok");
      await stored(env, form, loc.searchParams.get("submission_id")!);
    });
    await t.step("a foreign or malformed redirect is never followed", async () => {
      for (
        const target of [
          "https://evil.example/x",
          "//evil.example/x",
          "/\\evil.example/x",
          "https://shop.example@evil.example/",
          "javascript:alert(1)",
          "http://shop.example/x", // other scheme, other origin
        ]
      ) {
        const loc = await location(await post(env, form, [...VALID, ["_redirect", target]]));
        assert.equal(`${loc.origin}${loc.pathname}`, `${BASE}/f/${form.id}/thanks`, target);
      }
    });
  } finally {
    env.close();
  }
});

Deno.test("form post - the form's own redirects", async (t) => {
  const { t: env, form } = await setup(WITH_REDIRECTS);
  try {
    await t.step("redirect.success when the post names none (or a foreign one)", async () => {
      for (const extra of [[], [["_redirect", "https://evil.example/"]]] as [string, string][][]) {
        const loc = await location(await post(env, form, [...VALID, ...extra]));
        assert.equal(`${loc.origin}${loc.pathname}`, "https://shop.example/thanks");
        assert.ok(loc.searchParams.get("submission_id"));
      }
    });
    await t.step("an allowed _redirect wins over redirect.success", async () => {
      const res = await post(env, form, [...VALID, ["_redirect", "https://shop.example/mine"]]);
      assert.equal((await location(res)).pathname, "/mine");
    });
    await t.step("failure: 303 to redirect.error with error and fields", async () => {
      const res = await post(env, form, [["name", "Ada"], ["email", "nope"]]);
      const loc = await location(res);
      assert.equal(`${loc.origin}${loc.pathname}`, "https://shop.example/oops");
      assert.equal(loc.searchParams.get("x"), "1");
      assert.equal(loc.searchParams.get("error"), "validation_failed");
      assert.equal(loc.searchParams.get("fields"), "email");
      assert.equal(await recount(env.deps, form.id), 3);
    });
  } finally {
    env.close();
  }
});

Deno.test("form post - failures without an error redirect", async (t) => {
  const { t: env, form } = await setup({
    ...CONTACT_FORM,
    allowed_origins: ["https://shop.example"],
  });
  try {
    await t.step("an allowed _redirect takes the error code", async () => {
      const res = await post(env, form, [
        ["name", ""],
        ["email", "ada@example.com"],
        ["_redirect", "https://shop.example/form"],
      ]);
      const loc = await location(res);
      assert.equal(loc.pathname, "/form");
      assert.equal(loc.searchParams.get("error"), "validation_failed");
      assert.equal(loc.searchParams.get("fields"), "name");
    });
    await t.step("from the hosted page: 422 page, errors by each field, values kept", async () => {
      const res = await post(env, form, [
        ["name", "Ada <Lovelace>"],
        ["email", "ada@nowhere"],
        ["topic", "support"],
        ["_redirect", "https://evil.example/"],
        ["_idempotency_key", newPageKey()],
      ]);
      assert.equal(res.status, 422);
      assert.match(res.headers.get("content-type")!, /text\/html/);
      const html = await res.text();
      assert.match(html, /value="Ada &lt;Lovelace>"|value="Ada &lt;Lovelace&gt;"/);
      assert.match(html, /value="ada@nowhere"/);
      assert.match(html, /<option value="support"\s+selected/);
      assert.match(html, /aria-invalid="true"[^>]*aria-describedby="f-fld_email-error"/);
      assert.match(html, /id="f-fld_email-error"[^>]*>email must be a valid email address\./);
      assert.match(html, /Please correct 1 field\./);
      assert.doesNotMatch(html, /evil\.example/);
      assert.equal(await recount(env.deps, form.id), 0);
    });
    await t.step(
      "from another page: an error page with the status, errors and a way back",
      async () => {
        const res = await post(env, form, [
          ["name", ""],
          ["email", "ada@nowhere"],
          ["_next", "https://shop.example/thanks"],
        ], { referer: "https://shop.example/contact?x=1", origin: "https://shop.example" });
        assert.equal(res.status, 422);
        assert.match(res.headers.get("content-type")!, /text\/html/);
        const html = await res.text();
        assert.match(html, /Your response was not sent/);
        assert.match(html, /<li\s*>Name is required\.<\/li>/);
        assert.match(html, /<li\s*>email must be a valid email address\.<\/li>/);
        assert.match(html, /href="https:\/\/shop\.example\/contact\?x=1"[^>]*>Back to the form/);
        assert.doesNotMatch(html, /shop\.example\/thanks/, "never the success target");
        assert.equal(await recount(env.deps, form.id), 0);
        // Without Referer or Origin, the way back is the hosted form.
        const bare = await (await post(env, form, [["name", ""]])).text();
        assert.match(bare, new RegExp(`href="/f/${form.id}"[^>]*>Back to the form`));
      },
    );
    await t.step("an unknown field is listed in the notice", async () => {
      const res = await post(env, form, [...VALID, ["color", "red"], [
        "_idempotency_key",
        newPageKey(),
      ]]);
      assert.equal(res.status, 422);
      assert.match(await res.text(), /Unknown field &#39;color&#39;|Unknown field 'color'/);
    });
    await t.step("a client that does not ask for HTML gets the JSON error body", async () => {
      const res = await post(env, form, [["name", ""]], { accept: "*/*" });
      assert.equal(res.status, 422);
      const body = await res.json();
      assert.equal(body.code, "validation_failed");
      assert.equal(body.errors[0].field, "name");
    });
    await t.step("a missing form is an HTML 404", async () => {
      const res = await post(env, { id: "fNoSuchForm12" }, VALID);
      assert.equal(res.status, 404);
      assert.match(await res.text(), /Form not found/);
    });
  } finally {
    env.close();
  }
});

Deno.test("form post - reserved names", async (t) => {
  const { t: env, form } = await setup({
    ...CONTACT_FORM,
    fields: [
      ...CONTACT_FORM.fields!,
      { name: "redirect", label: "Redirect URL", type: "text" },
      { name: "tags", type: "multiselect", options: ["a", "b", "c"] },
      { name: "agree", type: "boolean" },
    ],
  });
  try {
    await t.step("none of them is stored; a field named like one is data", async () => {
      const res = await post(env, form, [
        ...VALID,
        ["redirect", "https://elsewhere.example/"],
        ["_schema_version", String(form.schema_version)],
        ["_idempotency_key", "k-reserved-1"],
        ["_gotcha", ""],
        ["cf-turnstile-response", "x"],
        ["h-captcha-response", "x"],
        ["g-recaptcha-response", "x"],
        ["altcha", "x"],
        ["tags", "a"],
        ["tags", "c"],
        ["agree", "true"],
      ]);
      const loc = await location(res);
      assert.equal(loc.pathname, `/f/${form.id}/thanks`);
      const sub = await stored(env, form, loc.searchParams.get("submission_id")!);
      assert.deepEqual(sub.fields, {
        name: "Ada",
        email: "ada@example.com",
        redirect: "https://elsewhere.example/",
        tags: ["a", "c"],
        agree: true,
      });
    });
    await t.step("_schema_version: stale is 409 re-rendered, malformed is 400", async () => {
      const stale = await post(env, form, [...VALID, ["_schema_version", "99"], [
        "_idempotency_key",
        newPageKey(),
      ]]);
      assert.equal(stale.status, 409);
      const html = await stale.text();
      assert.match(html, /This form changed since you opened it/);
      assert.match(html, /value="Ada"/);
      const bad = await post(env, form, [...VALID, ["_schema_version", "1.5"]]);
      assert.equal(bad.status, 400);
      assert.match(await bad.text(), /_schema_version/);
    });
    await t.step("a filled honeypot is refused (403) and stores nothing", async () => {
      const before = await recount(env.deps, form.id);
      const res = await post(env, form, [...VALID, ["_gotcha", "http://spam.example"]]);
      assert.equal(res.status, 403);
      assert.match(await res.text(), /flagged as spam/);
      assert.equal(await recount(env.deps, form.id), before);
    });
  } finally {
    env.close();
  }
});

Deno.test("form post - idempotency key of the hosted page", async (t) => {
  const { t: env, form } = await setup();
  const double = newPageKey();
  try {
    await t.step("the same key twice (double click) stores once", async () => {
      const pairs: [string, string][] = [...VALID, ["_idempotency_key", double]];
      const [a, b] = await Promise.all([post(env, form, pairs), post(env, form, pairs)]);
      const [la, lb] = [await location(a), await location(b)];
      assert.equal(la.searchParams.get("submission_id"), lb.searchParams.get("submission_id"));
      const again = await location(await post(env, form, pairs)); // Back, then resend
      assert.equal(again.searchParams.get("submission_id"), la.searchParams.get("submission_id"));
      assert.equal(await recount(env.deps, form.id), 1);
    });
    await t.step("the same key with other answers: 409 page with a fresh key", async () => {
      const res = await post(env, form, [
        ["name", "Grace"],
        ["email", "grace@example.com"],
        ["_idempotency_key", double],
      ]);
      assert.equal(res.status, 409);
      const html = await res.text();
      assert.match(html, /already sent a response with different answers/);
      assert.match(html, /value="Grace"/);
      const key = /name="_idempotency_key" value="([^"]+)"/.exec(html)?.[1];
      assert.ok(key && key !== double, String(key));
      const loc = await location(
        await post(env, form, [["name", "Grace"], ["email", "g@example.com"], [
          "_idempotency_key",
          key,
        ]]),
      );
      assert.ok(loc.searchParams.get("submission_id"));
      assert.equal(await recount(env.deps, form.id), 2);
    });
    await t.step("a malformed key is a 400", async () => {
      const res = await post(env, form, [...VALID, ["_idempotency_key", "has space"]]);
      assert.equal(res.status, 400);
      await res.body?.cancel();
    });
  } finally {
    env.close();
  }
});

Deno.test("form post - CAPTCHA, origin, closed form, rate limit", async (t) => {
  const fake = startFakeSiteverify();
  const { t: env, form } = await setup({
    ...CONTACT_FORM,
    captcha: { provider: "turnstile", siteKey: "site-key", secret: FAKE_SECRET },
    allowed_origins: ["https://example.com"],
  }, { ...fake.urls, RATE_LIMITS: JSON.stringify({ submit: 4 }) });
  try {
    await t.step("the widget's field carries the token; missing is captcha_required", async () => {
      const missing = await post(env, form, VALID);
      assert.equal(missing.status, 403);
      assert.match(await missing.text(), /A CAPTCHA token is required/);
      const loc = await location(
        await post(env, form, [...VALID, ["cf-turnstile-response", "ok:1"]]),
      );
      assert.ok(loc.searchParams.get("submission_id"));
      assert.equal(fake.requests.at(-1)?.params.get("response"), "ok:1");
    });
    await t.step("our own origin (the hosted page) is not judged by the allowlist", async () => {
      const res = await post(env, form, [...VALID, ["cf-turnstile-response", "ok:own"]], {
        origin: BASE,
      });
      assert.ok((await location(res)).searchParams.get("submission_id"));
    });
    await t.step("a foreign Origin is refused and stores nothing", async () => {
      const res = await post(env, form, [...VALID, ["cf-turnstile-response", "ok:2"]], {
        origin: "https://evil.example",
      });
      assert.equal(res.status, 403);
      await res.body?.cancel();
      assert.equal(await recount(env.deps, form.id), 2);
    });
    await t.step("rate limit applies as on JSON: 429 page", async () => {
      let last = 0;
      for (let i = 0; i < 3; i++) {
        const res = await post(env, form, [...VALID, ["cf-turnstile-response", `ok:r${i}`]]);
        last = res.status;
        await res.body?.cancel();
      }
      assert.equal(last, 429);
    });
  } finally {
    env.close();
    await fake.close();
  }
});

Deno.test("form post - closed form and unsupported type", async (t) => {
  const { t: env, form } = await setup({ ...CONTACT_FORM, accepting: false });
  try {
    await t.step("a closed form answers 423 with the values kept", async () => {
      const res = await post(env, form, [...VALID, ["_idempotency_key", newPageKey()]]);
      assert.equal(res.status, 423);
      const html = await res.text();
      assert.match(html, /not accepting submissions/);
      assert.match(html, /value="ada@example.com"/);
    });
    await t.step("text/plain is still 415 JSON", async () => {
      const res = await env.request(`/api/v1/submit/p/${form.id}`, {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: "name=Ada",
      });
      assert.equal(res.status, 415);
      assert.match((await res.json()).error, /multipart\/form-data/);
    });
  } finally {
    env.close();
  }
});
