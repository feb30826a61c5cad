import assert from "node:assert/strict";
import { ALTCHA_TTL_MS, createAltchaChallenge, verifyAltcha } from "@/lib/protection/altcha.ts";
import { type CaptchaResult, verifyCaptcha } from "@/lib/protection/captcha.ts";
import type { Form, FormDefinition } from "@/lib/schemas.ts";
import { FAKE_SECRET, solveAltcha, startFakeSiteverify } from "@/tests/fake_siteverify.ts";
import { CONTACT_FORM, makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";

function def(captcha: FormDefinition["captcha"], extra: Partial<FormDefinition> = {}) {
  return { ...CONTACT_FORM, captcha, ...extra };
}

function failed(r: CaptchaResult): { reason: string; clientFault: boolean } {
  assert.equal(r.ok, false, "expected a refusal");
  return r as { ok: false; reason: string; clientFault: boolean };
}

interface AltchaPayload {
  challenge: { parameters: { expiresAt: number } };
  solution: { derivedKey: string };
}

Deno.test("captcha - siteverify providers against a local fake", async (t) => {
  const fake = startFakeSiteverify();
  const env = await testEnv(fake.urls);
  try {
    const ws = await makeWorkspace(env.deps);
    const mk = (c: FormDefinition["captcha"], extra: Partial<FormDefinition> = {}) =>
      makeForm(env.deps, ws, def(c, extra));

    await t.step("turnstile: form-urlencoded secret/response/remoteip; reuse refused", async () => {
      const form = await mk({ provider: "turnstile", siteKey: "1x00", secret: FAKE_SECRET });
      const r = await verifyCaptcha(env.deps, form, "ok:t1", "198.51.100.4");
      assert.equal(r.ok, true);
      const req = fake.requests.at(-1)!;
      assert.equal(req.contentType, "application/x-www-form-urlencoded");
      assert.equal(req.params.get("secret"), FAKE_SECRET);
      assert.equal(req.params.get("response"), "ok:t1");
      assert.equal(req.params.get("remoteip"), "198.51.100.4");
      const again = failed(await verifyCaptcha(env.deps, form, "ok:t1", "198.51.100.4"));
      assert.match(again.reason, /already used/);
      assert.equal(again.clientFault, true);
    });

    await t.step("hcaptcha: pass, then already-seen-response", async () => {
      const form = await mk({
        provider: "hcaptcha",
        siteKey: "10000000-ffff",
        secret: FAKE_SECRET,
      });
      assert.equal((await verifyCaptcha(env.deps, form, "ok:h1", "unknown")).ok, true);
      assert.equal(fake.requests.at(-1)!.params.has("remoteip"), false);
      assert.match(failed(await verifyCaptcha(env.deps, form, "ok:h1", "x")).reason, /already/);
    });

    await t.step("a failed token is the client's fault, a bad secret is not", async () => {
      const form = await mk({ provider: "turnstile", secret: FAKE_SECRET });
      assert.equal(failed(await verifyCaptcha(env.deps, form, "bad1", "x")).clientFault, true);
      const wrong = await mk({ provider: "turnstile", secret: "wrong-secret" });
      const r = failed(await verifyCaptcha(env.deps, wrong, "ok:w1", "x"));
      assert.equal(r.clientFault, false);
      assert.doesNotMatch(r.reason, /wrong-secret/);
    });

    await t.step("recaptcha v2 passes; v3 checks score and action", async () => {
      const v2 = await mk({ provider: "recaptcha", secret: FAKE_SECRET });
      const r2 = await verifyCaptcha(env.deps, v2, "ok:r2", "x");
      assert.equal(r2.ok, true);
      assert.equal(r2.ok && r2.score, undefined);
      const v3 = await mk({
        provider: "recaptcha",
        version: "v3",
        secret: FAKE_SECRET,
        action: "submit",
      });
      const good = await verifyCaptcha(env.deps, v3, "v3:0.9:submit:a", "x");
      assert.equal(good.ok && good.score, 0.9);
      assert.match(
        failed(await verifyCaptcha(env.deps, v3, "v3:0.3:submit:b", "x")).reason,
        /automated/,
      );
      assert.match(
        failed(await verifyCaptcha(env.deps, v3, "v3:0.9:login:c", "x")).reason,
        /action/,
      );
      // A v2 answer (no score) to a v3 form is refused.
      assert.equal((await verifyCaptcha(env.deps, v3, "ok:plain", "x")).ok, false);
      const lenient = await mk({
        provider: "recaptcha",
        version: "v3",
        secret: FAKE_SECRET,
        minScore: 0.2,
      });
      assert.equal((await verifyCaptcha(env.deps, lenient, "v3:0.3:any:d", "x")).ok, true);
    });

    await t.step("hostname: allowed origins' hosts, or captcha.hostnames", async () => {
      const form = await mk({ provider: "turnstile", secret: FAKE_SECRET }, {
        allowed_origins: ["https://example.com"],
      });
      assert.equal((await verifyCaptcha(env.deps, form, "ok:host1", "x")).ok, true);
      const r = failed(await verifyCaptcha(env.deps, form, "ok@evil.test:1", "x"));
      assert.match(r.reason, /site/);
      const listed = await mk({
        provider: "hcaptcha",
        secret: FAKE_SECRET,
        hostnames: ["forms.example.org"],
      }, { allowed_origins: ["https://example.com"] });
      assert.equal((await verifyCaptcha(env.deps, listed, "ok@forms.example.org:2", "x")).ok, true);
      assert.equal((await verifyCaptcha(env.deps, listed, "ok:3", "x")).ok, false);
      // The hosted page lives on the service's own host: solved there, it always passes.
      const own = new URL(env.deps.config.baseUrl).hostname;
      assert.equal((await verifyCaptcha(env.deps, form, `ok@${own}:4`, "x")).ok, true);
      assert.equal((await verifyCaptcha(env.deps, listed, `ok@${own}:5`, "x")).ok, true);
    });

    await t.step("timeout and an unreachable provider fail closed", async () => {
      const form = await mk({ provider: "turnstile", secret: FAKE_SECRET });
      const started = performance.now();
      const r = failed(await verifyCaptcha(env.deps, form, "slow1", "x", { timeoutMs: 200 }));
      assert.equal(r.clientFault, false);
      assert.ok(performance.now() - started < 4_000, "the timeout cut the wait short");
      const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (probe.addr as Deno.NetAddr).port;
      probe.close();
      const dead = await testEnv({ TURNSTILE_VERIFY_URL: `http://127.0.0.1:${port}/x` });
      try {
        const f = await makeForm(
          dead.deps,
          await makeWorkspace(dead.deps),
          def({
            provider: "turnstile",
            secret: FAKE_SECRET,
          }),
        );
        assert.equal(failed(await verifyCaptcha(dead.deps, f, "ok:z", "x")).clientFault, false);
      } finally {
        dead.close();
      }
    });
  } finally {
    env.close();
    await fake.close();
  }
});

Deno.test("captcha - altcha challenge, solution, tampering and expiry", async (t) => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, def({ provider: "altcha" }));
    const other: Form = await makeForm(env.deps, ws, def({ provider: "altcha" }));

    await t.step("a solved challenge verifies; the nonce identifies it", async () => {
      const challenge = await createAltchaChallenge(env.deps, form);
      assert.equal(challenge.parameters.data?.form, form.id);
      const token = await solveAltcha(challenge);
      const r = await verifyAltcha(env.deps, form, token);
      assert.equal(r.ok, true);
      const again = await verifyAltcha(env.deps, form, token);
      assert.equal(again.ok && r.ok && again.digest === r.digest, true);
    });

    await t.step("tampered, foreign-form, garbage and expired payloads fail", async () => {
      const challenge = await createAltchaChallenge(env.deps, form);
      const token = await solveAltcha(challenge);
      const forge = (edit: (p: AltchaPayload) => void) => {
        const p = JSON.parse(atob(token));
        edit(p);
        return btoa(JSON.stringify(p));
      };
      // The derived key is the proof (checked against its signature), the parameters are signed.
      const flipped = forge((p) =>
        p.solution.derivedKey = p.solution.derivedKey.replace(
          /^./,
          (c: string) => c === "0" ? "1" : "0",
        )
      );
      assert.equal((await verifyAltcha(env.deps, form, flipped)).ok, false);
      const longer = forge((p) => p.challenge.parameters.expiresAt += 3600);
      assert.equal((await verifyAltcha(env.deps, form, longer)).ok, false);
      assert.equal((await verifyAltcha(env.deps, other, token)).ok, false);
      assert.equal((await verifyAltcha(env.deps, form, "not base64 json")).ok, false);
      const later = { ...env.deps, now: () => Date.now() + ALTCHA_TTL_MS + 1_000 };
      const expired = failed(await verifyAltcha(later, form, token));
      assert.match(expired.reason, /expired/);
    });

    await t.step("another instance secret cannot forge challenges", async () => {
      const foreign = await testEnv({ SECRET: "another-secret-another-secret-0123456" });
      try {
        const challenge = await createAltchaChallenge(foreign.deps, form);
        assert.equal((await verifyAltcha(env.deps, form, await solveAltcha(challenge))).ok, false);
      } finally {
        foreign.close();
      }
    });
  } finally {
    env.close();
  }
});
