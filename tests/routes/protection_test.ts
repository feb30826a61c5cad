import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import { updateWorkspace } from "@/lib/workspaces/workspaces.ts";
import { SPAM_MESSAGE } from "@/lib/errors.ts";
import {
  FAILURE_BLOCK_AT,
  FAILURE_WINDOW_MS,
  failureCount,
  FAILURES_KNOWN_MS,
  recordFailure,
} from "@/lib/protection/failures.ts";
import { buildDeps } from "@/lib/runtime.ts";
import { ipIdentity } from "@/lib/ratelimit/rate_limit.ts";
import type { FormDefinition, Submission } from "@/lib/schemas.ts";
import { FAKE_SECRET, solveAltcha, startFakeSiteverify } from "@/tests/fake_siteverify.ts";
import {
  CONTACT_FORM,
  contactData,
  makeForm,
  makeKey,
  makeWorkspace,
  postJson,
  recount,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";

const IP = "198.51.100.20";

async function stored(env: TestEnv, formId: string, id: string): Promise<Submission> {
  return (await readSubmission(env.deps.kv, formId, id))!;
}

async function expectError(res: Response, status: number, code: string): Promise<void> {
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.code, code);
  assert.equal(typeof body.error, "string");
}

Deno.test("protection - honeypot and repeated failures", async (t) => {
  let clock = Date.now();
  const env = await testEnv({}, { now: () => clock });
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    const path = `/api/v1/submit/p/${form.id}`;
    const trap = { data: { ...contactData().data, _gotcha: "http://spam.test" } };

    await t.step("a filled honeypot is 403 with the spam message; nothing stored", async () => {
      const res = await postJson(env, path, trap, {}, IP);
      assert.equal(res.status, 403);
      assert.deepEqual(await res.json(), { error: SPAM_MESSAGE, code: "spam_detected" });
      assert.equal(await recount(env.deps, form.id), 0);
      assert.equal(await failureCount(env.deps, ipIdentity(IP)), 1);
    });

    await t.step("an empty honeypot passes", async () => {
      const res = await postJson(
        env,
        path,
        { data: { ...contactData(1).data, _gotcha: "" } },
        {},
        IP,
      );
      assert.equal(res.status, 201);
    });

    await t.step(`${FAILURE_BLOCK_AT} failures in the window block the address`, async () => {
      for (let i = 1; i < FAILURE_BLOCK_AT; i++) {
        assert.equal((await postJson(env, path, trap, {}, IP)).status, 403);
      }
      const blocked = await postJson(env, path, contactData(2), {}, IP);
      await expectError(blocked, 403, "spam_detected");
      assert.equal((await postJson(env, path, contactData(3), {}, "198.51.100.21")).status, 201);
      assert.equal(await recount(env.deps, form.id), 2);
    });

    await t.step("the block lifts once the failures leave the window", async () => {
      clock += FAILURE_WINDOW_MS + 1_000;
      assert.equal((await postJson(env, path, contactData(4), {}, IP)).status, 201);
    });

    await t.step("another instance's failures count here within FAILURES_KNOWN_MS", async () => {
      const sender = "198.51.100.30";
      // This instance has read the sender's record (none) with its first submit.
      assert.equal((await postJson(env, path, contactData(5), {}, sender)).status, 201);
      const other = await buildDeps(env.deps.kv, env.deps.config, { now: () => clock });
      for (let i = 0; i < FAILURE_BLOCK_AT; i++) await recordFailure(other, ipIdentity(sender));
      // What this instance read stands for at most FAILURES_KNOWN_MS...
      assert.equal((await postJson(env, path, contactData(6), {}, sender)).status, 201);
      clock += FAILURES_KNOWN_MS;
      // ...then it reads the record again and the sender is blocked.
      await expectError(
        await postJson(env, path, contactData(7), {}, sender),
        403,
        "spam_detected",
      );
      // Its own failures count at once: a fresh sender trapped here is blocked on the next try.
      const own = "198.51.100.31";
      assert.equal((await postJson(env, path, contactData(8), {}, own)).status, 201);
      for (let i = 0; i < FAILURE_BLOCK_AT; i++) {
        assert.equal((await postJson(env, path, trap, {}, own)).status, 403);
      }
      await expectError(await postJson(env, path, contactData(9), {}, own), 403, "spam_detected");
      other.storage.close?.();
    });

    await t.step("with a key the honeypot still refuses, but records no failure", async () => {
      const key = await makeKey(env.deps, ws);
      const res = await postJson(env, path, trap, { authorization: `Bearer ${key}` }, "10.1.1.1");
      await expectError(res, 403, "spam_detected");
      assert.equal(await failureCount(env.deps, ipIdentity("10.1.1.1")), 0);
    });
  } finally {
    env.close();
  }
});

function captchaForm(captcha: FormDefinition["captcha"], extra: Partial<FormDefinition> = {}) {
  return { ...CONTACT_FORM, captcha, ...extra };
}

Deno.test("protection - CAPTCHA gate on submit", async (t) => {
  const fake = startFakeSiteverify();
  const env = await testEnv(fake.urls);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(
      env.deps,
      ws,
      captchaForm({ provider: "turnstile", secret: FAKE_SECRET }),
    );
    const path = `/api/v1/submit/p/${form.id}`;

    await t.step("the schema shows the provider and site key, never the secret", async () => {
      const res = await env.request(`/api/v1/forms/p/${form.id}`);
      const text = await res.text();
      assert.equal(JSON.parse(text).captcha.provider, "turnstile");
      assert.ok(!text.includes(FAKE_SECRET));
    });

    await t.step("missing token is 403 captcha_required, not counted as a failure", async () => {
      await expectError(await postJson(env, path, contactData(), {}, IP), 403, "captcha_required");
      assert.equal(await failureCount(env.deps, ipIdentity(IP)), 0);
    });

    await t.step("a refused token is 403 captcha_invalid and counts as a failure", async () => {
      const res = await postJson(env, path, { ...contactData(), captcha_token: "bad-1" }, {}, IP);
      await expectError(res, 403, "captcha_invalid");
      assert.equal(await failureCount(env.deps, ipIdentity(IP)), 1);
      assert.equal(await recount(env.deps, form.id), 0);
    });

    await t.step("a valid token is accepted once; the provider is recorded", async () => {
      const res = await postJson(env, path, { ...contactData(), captcha_token: "ok:s1" }, {}, IP);
      assert.equal(res.status, 201);
      const sub = await stored(env, form.id, (await res.json()).submission_id);
      assert.deepEqual(sub.signals.captcha, { provider: "turnstile", score: undefined });
      assert.equal(sub.signals.failures, 1);
      const again = await postJson(
        env,
        path,
        { ...contactData(9), captcha_token: "ok:s1" },
        {},
        IP,
      );
      await expectError(again, 403, "captcha_invalid");
    });

    await t.step("an idempotent retry whose token was spent replays the original", async () => {
      const headers = { "idempotency-key": "retry-1" };
      const body = { ...contactData(5), captcha_token: "ok:s2" };
      const first = await postJson(env, path, body, headers, IP);
      assert.equal(first.status, 201);
      const retry = await postJson(env, path, body, headers, IP);
      assert.equal(retry.status, 201);
      assert.equal(retry.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(await retry.json(), await first.json());
      // Concurrent retries while the first is still being written replay too.
      const racing = { ...contactData(6), captcha_token: "ok:s3" };
      const h2 = { "idempotency-key": "retry-2" };
      const all = await Promise.all([1, 2, 3].map(() => postJson(env, path, racing, h2, IP)));
      assert.deepEqual(all.map((r) => r.status), [201, 201, 201]);
      const ids = new Set(await Promise.all(all.map(async (r) => (await r.json()).submission_id)));
      assert.equal(ids.size, 1);
    });

    await t.step("a key with submit scope skips the gate", async () => {
      const key = await makeKey(env.deps, ws, { scopes: ["submit"] });
      const res = await postJson(env, path, contactData(7), { authorization: `Bearer ${key}` });
      assert.equal(res.status, 201);
    });

    await t.step("validate is not gated (it has no side effects)", async () => {
      const res = await postJson(env, `/api/v1/forms/p/${form.id}/validate`, contactData(), {}, IP);
      assert.equal(res.status, 200);
    });

    await t.step("a provider-side refusal (bad secret) fails closed, not counted", async () => {
      const down = await makeForm(
        env.deps,
        ws,
        captchaForm({ provider: "hcaptcha", secret: "nope" }),
      );
      const res = await postJson(
        env,
        `/api/v1/submit/p/${down.id}`,
        {
          ...contactData(),
          captcha_token: "ok:x",
        },
        {},
        "198.51.100.77",
      );
      await expectError(res, 403, "captcha_invalid");
      assert.equal(await failureCount(env.deps, ipIdentity("198.51.100.77")), 0);
    });

    await t.step("reCAPTCHA v3: the score is kept, a low one refused", async () => {
      const v3 = await makeForm(
        env.deps,
        ws,
        captchaForm({
          provider: "recaptcha",
          version: "v3",
          secret: FAKE_SECRET,
          action: "submit",
        }),
      );
      const p = `/api/v1/submit/p/${v3.id}`;
      const ok = await postJson(
        env,
        p,
        { ...contactData(), captcha_token: "v3:0.7:submit:1" },
        {},
        "198.51.100.30",
      );
      assert.equal(ok.status, 201);
      const sub = await stored(env, v3.id, (await ok.json()).submission_id);
      assert.deepEqual(sub.signals.captcha, { provider: "recaptcha", score: 0.7 });
      const low = await postJson(
        env,
        p,
        { ...contactData(), captcha_token: "v3:0.1:submit:2" },
        {},
        "198.51.100.30",
      );
      await expectError(low, 403, "captcha_invalid");
    });
  } finally {
    env.close();
    await fake.close();
  }
});

Deno.test("protection - ALTCHA round trip, single use across instances", async (t) => {
  const kvPath = await Deno.makeTempFile({ suffix: ".kv" });
  // Two instances: each its own KV handle and group committer over the same file.
  const a = await testEnv({ KV_PATH: kvPath, RATE_LIMITS: '{"challenge":3}' });
  const b = await testEnv({ KV_PATH: kvPath });
  try {
    const ws = await makeWorkspace(a.deps);
    const form = await makeForm(a.deps, ws, captchaForm({ provider: "altcha" }));
    const challengeUrl = `/api/v1/forms/p/${form.id}/altcha-challenge`;
    const path = `/api/v1/submit/p/${form.id}`;
    const solve = async () => {
      const res = await a.request(challengeUrl, { ip: "198.51.100.50" });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("cache-control"), "no-store");
      return await solveAltcha(await res.json());
    };

    await t.step("challenge, solve, submit; the same solution is refused after", async () => {
      const token = await solve();
      const res = await postJson(a, path, { ...contactData(), captcha_token: token }, {}, IP);
      assert.equal(res.status, 201);
      const sub = await stored(a, form.id, (await res.json()).submission_id);
      assert.equal(sub.signals.captcha?.provider, "altcha");
      const again = await postJson(b, path, { ...contactData(1), captcha_token: token }, {}, IP);
      await expectError(again, 403, "captcha_invalid");
    });

    await t.step("one solution raced through two instances is accepted exactly once", async () => {
      const token = await solve();
      const results = await Promise.all(
        [a, b, a, b].map((env, i) =>
          postJson(
            env,
            path,
            { ...contactData(10 + i), captcha_token: token },
            {},
            `198.51.100.${60 + i}`,
          )
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      await Promise.all(results.map((r) => r.body?.cancel()));
      assert.deepEqual(statuses, [201, 403, 403, 403]);
      assert.equal(await recount(a.deps, form.id), 2);
    });

    await t.step("the challenge endpoint is rate limited and only for ALTCHA forms", async () => {
      const third = await a.request(challengeUrl, { ip: "198.51.100.50" });
      assert.equal(third.status, 200);
      await third.body?.cancel();
      const res = await a.request(challengeUrl, { ip: "198.51.100.50" });
      await expectError(res, 429, "rate_limited");
      assert.equal(res.headers.get("retry-after"), null);
      const plain = await makeForm(a.deps, ws);
      const other = await a.request(`/api/v1/forms/p/${plain.id}/altcha-challenge`, {
        ip: "198.51.100.51",
      });
      await expectError(other, 404, "not_found");
    });
  } finally {
    a.close();
    b.close();
    await Deno.remove(kvPath).catch(() => {});
  }
});

Deno.test("protection - CORS and the origin allowlist", async (t) => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const listed = await makeForm(env.deps, ws, {
      ...CONTACT_FORM,
      allowed_origins: ["https://shop.example", "http://localhost:5173"],
    });
    const open = await makeForm(env.deps, ws, CONTACT_FORM);
    const submitTo = (id: string) => `/api/v1/submit/p/${id}`;
    const preflight = (id: string, origin: string) =>
      env.request(submitTo(id), {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "Content-Type, Idempotency-Key, X-Evil",
        },
      });

    await t.step("preflight from an allowed origin is granted and echoed", async () => {
      const res = await preflight(listed.id, "https://shop.example");
      assert.equal(res.status, 204);
      assert.equal(res.headers.get("access-control-allow-origin"), "https://shop.example");
      assert.match(res.headers.get("access-control-allow-methods")!, /POST/);
      assert.equal(
        res.headers.get("access-control-allow-headers"),
        "content-type, idempotency-key",
      );
      assert.match(res.headers.get("vary")!, /Origin/);
    });

    await t.step(
      "preflight from a foreign or null origin is granted (its refusal is readable)",
      async () => {
        for (const origin of ["https://evil.example", "null", "https://shop.example.evil.test"]) {
          const res = await preflight(listed.id, origin);
          assert.equal(res.status, 204);
          assert.equal(res.headers.get("access-control-allow-origin"), origin);
          assert.match(res.headers.get("access-control-allow-methods")!, /POST/);
          assert.match(res.headers.get("vary")!, /Origin/);
        }
      },
    );

    await t.step(
      "submit from a foreign or null origin is 403 origin_not_allowed, nothing stored",
      async () => {
        for (const origin of ["https://evil.example", "null"]) {
          const res = await postJson(env, submitTo(listed.id), contactData(), { origin });
          // The refusal is readable by the page: it carries the requesting origin.
          assert.equal(res.headers.get("access-control-allow-origin"), origin);
          await expectError(res, 403, "origin_not_allowed");
        }
        assert.equal(await recount(env.deps, listed.id), 0);
      },
    );

    await t.step("submit from an allowed origin: 201 and errors both carry the grant", async () => {
      const ok = await postJson(env, submitTo(listed.id), contactData(), {
        origin: "http://localhost:5173",
      });
      assert.equal(ok.status, 201);
      assert.equal(ok.headers.get("access-control-allow-origin"), "http://localhost:5173");
      assert.match(ok.headers.get("access-control-expose-headers")!, /X-Request-Id/);
      const bad = await postJson(env, submitTo(listed.id), { data: {} }, {
        origin: "https://shop.example",
      });
      assert.equal(bad.status, 422);
      assert.equal(bad.headers.get("access-control-allow-origin"), "https://shop.example");
      await bad.body?.cancel();
    });

    await t.step("a submit refused before its form is read still carries the grant", async () => {
      for (
        const [init, status] of [
          [{ body: "{not json", headers: {} }, 400],
          [{ body: JSON.stringify(contactData()), headers: { authorization: "Bearer nope" } }, 401],
        ] as const
      ) {
        const res = await postJson(env, submitTo(listed.id), init.body, {
          origin: "https://shop.example",
          ...init.headers,
        });
        assert.equal(res.status, status);
        assert.equal(res.headers.get("access-control-allow-origin"), "https://shop.example");
        await res.body?.cancel();
      }
      const foreign = await postJson(env, submitTo(listed.id), "{not json", {
        origin: "https://evil.example",
      });
      assert.equal(foreign.status, 400);
      assert.equal(foreign.headers.get("access-control-allow-origin"), "https://evil.example");
      await foreign.body?.cancel();
    });

    await t.step("an empty list allows every origin but never null", async () => {
      const ok = await postJson(env, submitTo(open.id), contactData(), {
        origin: "https://anywhere.example",
      });
      assert.equal(ok.status, 201);
      assert.equal(ok.headers.get("access-control-allow-origin"), "https://anywhere.example");
      await expectError(
        await postJson(env, submitTo(open.id), contactData(), { origin: "null" }),
        403,
        "origin_not_allowed",
      );
    });

    await t.step("no Origin (servers, curl) passes without a grant", async () => {
      const res = await postJson(env, submitTo(listed.id), contactData(2));
      assert.equal(res.status, 201);
      assert.equal(res.headers.get("access-control-allow-origin"), null);
      assert.match(res.headers.get("vary")!, /Origin/);
    });

    await t.step("schema and validate follow the same allowlist", async () => {
      const schema = await env.request(`/api/v1/forms/p/${listed.id}`, {
        headers: { origin: "https://evil.example" },
      });
      assert.equal(schema.status, 200);
      assert.equal(schema.headers.get("access-control-allow-origin"), null);
      await schema.body?.cancel();
      const granted = await env.request(`/api/v1/forms/p/${listed.id}`, {
        headers: { origin: "https://shop.example" },
      });
      assert.equal(granted.headers.get("access-control-allow-origin"), "https://shop.example");
      await granted.body?.cancel();
      const validate = await postJson(env, `/api/v1/forms/p/${listed.id}/validate`, contactData(), {
        origin: "https://evil.example",
      });
      assert.equal(validate.headers.get("access-control-allow-origin"), "https://evil.example");
      await expectError(validate, 403, "origin_not_allowed");
    });

    await t.step("the service's own origin (hosted pages) is always allowed", async () => {
      const own = new URL(env.deps.config.baseUrl).origin;
      const validate = await postJson(env, `/api/v1/forms/p/${listed.id}/validate`, contactData(), {
        origin: own,
      });
      assert.equal(validate.status, 200);
      assert.equal(validate.headers.get("access-control-allow-origin"), own);
      await validate.body?.cancel();
      const submitted = await postJson(env, submitTo(listed.id), contactData(3), { origin: own });
      assert.equal(submitted.status, 201);
      await submitted.body?.cancel();
    });

    await t.step("an unknown form answers a readable 404", async () => {
      const res = await preflight("nosuchform", "https://shop.example");
      assert.equal(res.headers.get("access-control-allow-origin"), "https://shop.example");
      const post = await postJson(env, submitTo("nosuchform"), contactData(), {
        origin: "https://shop.example",
      });
      assert.equal(post.headers.get("access-control-allow-origin"), "https://shop.example");
      await expectError(post, 404, "not_found");
    });

    await t.step("a suspended workspace's form answers exactly like a missing one", async () => {
      const other = await makeWorkspace(env.deps);
      const form = await makeForm(env.deps, other, {
        ...CONTACT_FORM,
        allowed_origins: ["https://shop.example"],
      });
      await updateWorkspace(env.deps, other.id, { suspended: true });
      for (const origin of ["https://evil.example", "https://shop.example"]) {
        const send = (id: string) =>
          postJson(env, `/api/v1/forms/p/${id}/validate`, contactData(), { origin });
        const [suspended, missing] = [await send(form.id), await send("fNoSuchForm12")];
        assert.equal(suspended.status, 404, origin);
        assert.equal(await suspended.text(), await missing.text());
        // Both refusals are readable by the page, alike.
        assert.equal(suspended.headers.get("access-control-allow-origin"), origin);
        assert.equal(missing.headers.get("access-control-allow-origin"), origin);
      }
    });
  } finally {
    env.close();
  }
});
