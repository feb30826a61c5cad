/**
 * Other services' post conventions, each with its safety rule: `_next` only through the
 * redirect allowlist, `_subject` one line (checked on a real SMTP server: no injected
 * header), `_replyto` only when a valid address, `_gotcha` and `bot-field` as honeypots,
 * `form-name` ignored; none is stored as data and none adds a recipient.
 */
import assert from "node:assert/strict";
import { dispatch } from "@/lib/jobs/mod.ts";
import { readSubmission } from "@/lib/submissions/records.ts";
import { postedSubject } from "@/lib/submissions/conventions.ts";
import { submissionView } from "@/lib/submissions/query.ts";
import { emailDigest } from "@/lib/privacy/email_index.ts";
import type { FormDefinition } from "@/lib/schemas.ts";
import {
  CONTACT_FORM,
  makeForm,
  makeWorkspace,
  recount,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { recipients, smtp, waitFor } from "@/tests/lib/notify/_support.ts";

const BASE = "http://forms.test";
const SITE = "https://shop.example";
const LIMITS = JSON.stringify({ submit: 100_000 });
const VALID: [string, string][] = [["name", "Ada"], ["email", "ada@example.com"]];

function post(
  env: TestEnv,
  formId: string,
  pairs: [string, string][],
  headers: Record<string, string> = {},
): Promise<Response> {
  return env.request(`/api/v1/submit/p/${formId}`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      accept: "text/html,application/xhtml+xml,*/*;q=0.8",
      ...headers,
    },
    body: new URLSearchParams(pairs).toString(),
  });
}

async function location(res: Response): Promise<URL> {
  await res.body?.cancel();
  assert.equal(res.status, 303);
  return new URL(res.headers.get("location")!, BASE);
}

Deno.test("conventions - _next, honeypots, form-name: read, never stored", async (t) => {
  const env = await testEnv({ BASE_URL: BASE, RATE_LIMITS: LIMITS });
  const ws = await makeWorkspace(env.deps);
  const form = await makeForm(env.deps, ws, { ...CONTACT_FORM, allowed_origins: [SITE] });
  // A form whose honeypot has another name, and one with none.
  const named = await makeForm(env.deps, ws, { ...CONTACT_FORM, honeypot: "website_url" });
  const bare = await makeForm(env.deps, ws, { ...CONTACT_FORM, honeypot: null });
  try {
    await t.step("_next on the allowlist is followed; the extras are not data", async () => {
      const loc = await location(
        await post(env, form.id, [
          ...VALID,
          ["_next", `${SITE}/merci`],
          ["form-name", "contact"],
          ["_subject", "Hello"],
          ["_replyto", "ada@example.com"],
          ["bot-field", ""],
          ["_gotcha", ""],
        ]),
      );
      assert.equal(`${loc.origin}${loc.pathname}`, `${SITE}/merci`);
      const sub = await readSubmission(
        env.deps.kv,
        form.id,
        loc.searchParams.get("submission_id")!,
      );
      assert.deepEqual(sub?.fields, { name: "Ada", email: "ada@example.com" });
      assert.deepEqual(sub?.metadata, {});
      assert.deepEqual(sub?.owner_mail, { subject: "Hello", reply_to: "ada@example.com" });
      // Never shown by the API, exports or webhooks (they all show this view).
      assert.equal(JSON.stringify(submissionView(sub!)).includes("Hello"), false);
    });
    await t.step("an off-allowlist or hostile _next is not followed", async () => {
      for (const target of ["https://evil.example/", "//evil.example/x", "javascript:alert(1)"]) {
        const loc = await location(await post(env, form.id, [...VALID, ["_next", target]]));
        assert.equal(`${loc.origin}${loc.pathname}`, `${BASE}/f/${form.id}/thanks`, target);
      }
    });
    await t.step(
      "a refused post never goes to _next (invalid, _gotcha, foreign origin)",
      async () => {
        const refusals: [string, [string, string][], Record<string, string>][] = [
          ["validation_failed", [["name", "Ada"], ["email", "not-an-email"]], {}],
          ["spam_detected", [...VALID, ["_gotcha", "http://spam.example"]], {}],
          ["origin_not_allowed", VALID, { origin: "https://evil.example" }],
        ];
        for (const [code, pairs, headers] of refusals) {
          const before = await recount(env.deps, form.id);
          const next: [string, string] = ["_next", `${SITE}/thanks`];
          const own = await post(env, form.id, [...pairs, next], headers);
          assert.notEqual(own.status, 303, code);
          const html = await own.text();
          assert.match(html, /Your response was not sent/, code);
          assert.doesNotMatch(html, /shop\.example\/thanks/, code);
          // `_redirect` (success or failure) takes the refusal with its code.
          const loc = await location(
            await post(env, form.id, [...pairs, next, ["_redirect", `${SITE}/form`]], headers),
          );
          assert.equal(`${loc.origin}${loc.pathname}`, `${SITE}/form`, code);
          assert.equal(loc.searchParams.get("error"), code);
          assert.equal(await recount(env.deps, form.id), before, `${code}: nothing stored`);
        }
      },
    );
    await t.step("_redirect wins over _next", async () => {
      const loc = await location(
        await post(env, form.id, [...VALID, ["_next", `${SITE}/a`], ["_redirect", `${SITE}/b`]]),
      );
      assert.equal(loc.pathname, "/b");
    });
    await t.step(
      "_gotcha and bot-field filled: 403 spam whatever the form's honeypot",
      async () => {
        for (const f of [form, named, bare]) {
          for (const trap of ["_gotcha", "bot-field"]) {
            const before = await recount(env.deps, f.id);
            // Another address: honeypot hits count toward the repeat-offender block.
            const res = await env.request(`/api/v1/submit/p/${f.id}`, {
              ip: "198.51.100.9",
              method: "POST",
              headers: {
                "content-type": "application/x-www-form-urlencoded",
                accept: "application/json",
              },
              body: new URLSearchParams([...VALID, [trap, "http://spam.example"]]).toString(),
            });
            assert.equal(res.status, 403, `${trap} on ${f.honeypot}`);
            assert.equal((await res.json()).code, "spam_detected");
            assert.equal(await recount(env.deps, f.id), before, "nothing stored");
          }
        }
        // The form's own honeypot by its own name still works.
        const res = await env.request(`/api/v1/submit/p/${named.id}`, {
          ip: "198.51.100.10",
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams([...VALID, ["website_url", "x"]]).toString(),
        });
        await res.body?.cancel();
        assert.equal(res.status, 403);
      },
    );
    await t.step("a field of the form with a convention's name stays a field", async () => {
      const def: FormDefinition = {
        name: "Has subject",
        fields: [{ name: "_subject", type: "text" }, { name: "bot-field", type: "text" }],
        honeypot: null,
      };
      const f = await makeForm(env.deps, ws, def);
      const loc = await location(
        await post(env, f.id, [["_subject", "Mine"], ["bot-field", "kept"]]),
      );
      const sub = await readSubmission(env.deps.kv, f.id, loc.searchParams.get("submission_id")!);
      assert.deepEqual(sub?.fields, { _subject: "Mine", "bot-field": "kept" });
      assert.equal(sub?.owner_mail, undefined);
    });
    await t.step("_replyto invalid or a list is ignored; _reply_to is read too", async () => {
      for (
        const [name, value, want] of [
          ["_replyto", "not an address", undefined],
          ["_replyto", "a@example.com, b@example.com", undefined],
          ["_replyto", "Eve <eve@example.com>", undefined],
          ["_replyto", "x@example.com\r\nBcc: v@example.com", undefined],
          ["_reply_to", "grace@example.com", "grace@example.com"],
        ] as [string, string, string | undefined][]
      ) {
        const loc = await location(await post(env, form.id, [...VALID, [name, value]]));
        const id = loc.searchParams.get("submission_id")!;
        const sub = await readSubmission(env.deps.kv, form.id, id);
        assert.equal(sub?.owner_mail?.reply_to, want, value);
        if (want) {
          // An erase or export by that address finds the submission.
          assert.ok(sub?.email_digests?.includes(emailDigest(env.deps.secret, want)));
        }
        assert.deepEqual(Object.keys(sub?.fields ?? {}).sort(), ["email", "name"]);
      }
    });
  } finally {
    env.close();
  }
});

Deno.test("conventions - _subject is one line of at most 200 characters", () => {
  assert.equal(
    postedSubject("  Hi\r\nBcc: victim@example.com\r\n\r\nbody "),
    "Hi Bcc: victim@example.com body",
  );
  assert.equal(postedSubject("a\u2028b\u0000c\td"), "a b c d");
  assert.equal(postedSubject(" \r\n "), undefined);
  assert.equal(postedSubject(undefined), undefined);
  const long = postedSubject("é".repeat(150) + "😀".repeat(100))!;
  assert.equal(Array.from(long).length, 200);
  assert.ok(long.endsWith("😀…"), "cut on a character, not inside a surrogate pair");
});

Deno.test("conventions - the owner email over real SMTP: _subject and _replyto, no injection, no extra recipient", async () => {
  const mail = await smtp();
  const env = await testEnv({ BASE_URL: BASE, RATE_LIMITS: LIMITS, SMTP_URL: mail.url });
  env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, {
      ...CONTACT_FORM,
      fields: [
        ...(CONTACT_FORM.fields ?? []).filter((f) => f.name !== "email"),
        { id: "fld_email", name: "email", type: "email" },
      ],
      notifications: { emails: ["owner@example.com"], subject: "Template {form}" },
    });
    const loc = await location(
      await post(env, form.id, [
        ["name", "Ada"],
        ["_subject", "Order\r\nBcc: victim@example.com\r\nX-Evil: 1\nCc: other@example.com"],
        ["_replyto", "ada@example.com"],
        ["_next", "mailto:victim@example.com"],
      ]),
    );
    assert.equal(loc.pathname, `/f/${form.id}/thanks`);
    await waitFor("the owner mail", () => mail.mails.length === 1);
    const [owner] = mail.mails;
    assert.equal(
      owner.subject,
      "Order Bcc: victim@example.com X-Evil: 1 Cc: other@example.com",
    );
    assert.equal(owner.headers.get("x-evil"), undefined);
    assert.equal(owner.bcc, undefined);
    assert.equal(owner.cc, undefined);
    assert.deepEqual(recipients(owner), ["owner@example.com"]);
    assert.equal(owner.replyTo?.value[0].address, "ada@example.com");
    assert.ok(!owner.text?.includes("_subject"), "not listed as a field");

    // Without _subject, the form's template; the form's reply-to field wins over _replyto.
    const withField = await makeForm(env.deps, ws, {
      ...CONTACT_FORM,
      notifications: {
        emails: ["owner@example.com"],
        subject: "Template {form}",
        reply_to_field: "email",
      },
    });
    await location(
      await post(env, withField.id, [...VALID, ["_replyto", "other@example.com"]]),
    );
    await waitFor("the second mail", () => mail.mails.length === 2);
    assert.equal(mail.mails[1].subject, "Template Contact");
    assert.equal(mail.mails[1].replyTo?.value[0].address, "ada@example.com");
    assert.equal(mail.calls(), 2, "one message each: no extra recipient, no second mail");
  } finally {
    await env.deps.jobs.stop();
    env.close();
    await mail.close();
  }
});
