/**
 * Akismet as a second opinion, against a local fake HTTP server speaking its documented
 * protocol (form-encoded POSTs to /1.1/verify-key, comment-check, submit-spam, submit-ham;
 * `true`/`false` bodies, `X-akismet-pro-tip: discard`, `invalid` for a bad key).
 * @module
 */
import assert from "node:assert/strict";
import { dispatch } from "@/lib/jobs/mod.ts";
import { akismetCheck, akismetSubmit, akismetVerifyKey } from "@/lib/protection/akismet.ts";
import type { Form } from "@/lib/schemas.ts";
import { setSubmissionStatus } from "@/lib/submissions/status.ts";
import {
  makeForm,
  makeWorkspace,
  MESSAGE_FORM,
  postJson,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { within } from "@/tests/processes.ts";
import { finalVerdictOf } from "@/tests/scoring.ts";
import { fakeAkismet, GOOD_KEY } from "@/tests/akismet_fake.ts";

Deno.test("akismet - the protocol: verify-key, comment-check answers, a bad key", async () => {
  const fake = fakeAkismet();
  try {
    const good = { key: GOOD_KEY, url: fake.url };
    const bad = { key: "wrong", url: fake.url };
    assert.equal(await akismetVerifyKey(good, "https://forms.example"), true);
    assert.equal(await akismetVerifyKey(bad, "https://forms.example"), false);
    const ask = (cfg: typeof good, content: string) =>
      akismetCheck(cfg, new URLSearchParams({ api_key: cfg.key, comment_content: content }));
    assert.equal(await ask(good, "hello"), "ham");
    assert.equal(await ask(good, "spammy offer"), "spam");
    assert.equal(await ask(good, "blatant offer"), "discard");
    assert.equal(await ask(bad, "spammy offer"), null, "invalid is no answer");
    const params = new URLSearchParams({ api_key: GOOD_KEY, comment_content: "x" });
    assert.equal(await akismetSubmit(good, "spam", params), true);
    assert.equal(fake.calls.at(-1)?.path, "/1.1/submit-spam");
  } finally {
    await fake.server.shutdown();
  }
  // Down: no answer, no throw.
  const down = { key: GOOD_KEY, url: fake.url };
  assert.equal(
    await akismetCheck(down, new URLSearchParams({ api_key: GOOD_KEY, comment_content: "x" })),
    null,
  );
});

async function submitAndScore(env: TestEnv, form: Form, message: string, i: number) {
  const res = await postJson(
    env,
    `/api/v1/submit/p/${form.id}`,
    { data: { name: `Ann ${i}`, email: `ann${i}@mail.example`, message } },
    { "user-agent": "Mozilla/5.0", origin: "https://www.example.com" },
    `198.51.100.${i + 1}`,
  );
  assert.equal(res.status, 201, await res.clone().text());
  return await finalVerdictOf(env, form.id, (await res.json()).submission_id);
}

Deno.test("akismet - a second opinion in the scoring job; labels reported; down changes nothing", async () => {
  const fake = fakeAkismet();
  const env = await testEnv({ AKISMET_KEY: GOOD_KEY, AKISMET_URL: fake.url });
  env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws, MESSAGE_FORM);
    const plain = "What are your opening hours on Saturday?";

    const ok = await submitAndScore(env, form, plain, 1);
    assert.equal(ok.status, "completed");
    const asked = fake.calls.find((c) => c.path === "/1.1/comment-check")!;
    assert.equal(asked.params.get("comment_type"), "contact-form");
    assert.equal(asked.params.get("comment_content"), plain);
    assert.equal(asked.params.get("comment_author_email"), "ann1@mail.example");
    // The address as the form keeps it (truncated by default), never more.
    assert.equal(asked.params.get("user_ip"), "198.51.100.0");

    const flagged = await submitAndScore(env, form, "A spammy note about opening hours", 2);
    assert.equal(flagged.status, "suspicious");
    assert.ok(flagged.spam?.reasons.includes("akismet_spam"), String(flagged.spam?.reasons));
    const blatant = await submitAndScore(env, form, "A blatant note about opening hours", 3);
    assert.equal(blatant.status, "spam");
    assert.ok(blatant.spam?.reasons.includes("akismet_discard"));

    // An admin's label goes to Akismet too.
    await setSubmissionStatus(env.deps, form.id, ok.id, "spam");
    const reported = await within(
      10_000,
      () => Promise.resolve(fake.calls.some((c) => c.path === "/1.1/submit-spam")),
    );
    assert.notEqual(reported, null, "submit-spam sent");
    const sent = fake.calls.find((c) => c.path === "/1.1/submit-spam")!;
    assert.equal(sent.params.get("comment_content"), plain);

    // Akismet down: the local verdict stands.
    await fake.server.shutdown();
    const alone = await submitAndScore(env, form, "A blatant note about opening hours", 4);
    assert.equal(alone.status, "completed");
    assert.ok(!alone.spam?.reasons.some((r) => r.startsWith("akismet")));
  } finally {
    await env.deps.jobs.stop();
    env.close();
    await fake.server.shutdown().catch(() => {});
  }
});

Deno.test("akismet - off by default: no key, no call", async () => {
  const env = await testEnv();
  try {
    assert.equal(env.deps.config.akismet, null);
  } finally {
    env.close();
  }
});
