import assert from "node:assert/strict";
import type { FormDefinition } from "@/lib/schemas.ts";
import { updateWorkspace } from "@/lib/workspaces/workspaces.ts";
import { CONTACT_FORM, makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";

const EVERY_TYPE: FormDefinition = {
  name: "Every <type>",
  fields: [
    { name: "t", label: "Text", type: "text", required: true, minLength: 2, maxLength: 9 },
    { name: "ta", label: "Textarea", type: "textarea" },
    { name: "e", label: "Email", type: "email" },
    { name: "u", label: "Url", type: "url" },
    { name: "tel", label: "Tel", type: "tel" },
    { name: "n", label: "Number", type: "number", min: 0, max: 5 },
    { name: "i", label: "Integer", type: "integer" },
    { name: "b", label: "Bool", type: "boolean" },
    { name: "s", label: "Select", type: "select", options: ["s1", "s2"] },
    { name: "m", label: "Multi", type: "multiselect", options: ["m1", "m2"] },
    { name: "r", label: "Radio", type: "radio", options: ["r1", "r2"], required: true },
    { name: "d", label: "Date", type: "date" },
    { name: "dt", label: "Datetime", type: "datetime" },
    { name: "h", type: "hidden" },
    { name: "f", label: "File", type: "file", allowedTypes: ["application/pdf"], maxSizeMB: 2 },
    { name: "img", label: "Image", type: "image" },
    { name: "sig", label: "Signature", type: "signature" },
    { name: "vid", label: "Video", type: "video" },
    { name: "aud", label: "Audio", type: "audio" },
  ],
  honeypot: "_hp",
};

Deno.test("hosted pages - the form page", async (t) => {
  const env = await testEnv({ BASE_URL: "http://forms.test" });
  const ws = await makeWorkspace(env.deps);
  const form = await makeForm(env.deps, ws, EVERY_TYPE);
  try {
    const res = await env.request(`/f/${form.id}?h=campaign&t=pre%22fill&m=m2&nope=1`);
    const html = await res.text();
    await t.step("HTML with the page headers", () => {
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type")!, /text\/html/);
      assert.equal(res.headers.get("cache-control"), "private, no-cache");
      assert.match(res.headers.get("content-security-policy")!, /script-src 'self'/);
      assert.match(html, /<title>Every &lt;type><\/title>|<title>Every &lt;type&gt;<\/title>/);
    });
    await t.step("a labelled control of the right kind for every field type", () => {
      const control = (id: string, attrs: RegExp) => {
        assert.match(html, new RegExp(`<label[^>]* for="f-fld_${id}"`), id);
        assert.match(html, attrs, id);
      };
      control(
        "t",
        /<input id="f-fld_t" name="t" required[^>]*type="text" value="pre&quot;fill" minlength="2" maxlength="9"/,
      );
      control("ta", /<textarea id="f-fld_ta" name="ta"/);
      control("e", /id="f-fld_e"[^>]*type="email"/);
      control("u", /id="f-fld_u"[^>]*type="url"/);
      control("tel", /id="f-fld_tel"[^>]*type="tel"/);
      control("n", /id="f-fld_n"[^>]*type="number"[^>]*min="0" max="5" step="any"/);
      control("i", /id="f-fld_i"[^>]*type="number"[^>]*step="1"/);
      control("b", /type="checkbox" id="f-fld_b" name="b" value="true"/);
      control("s", /<select id="f-fld_s" name="s"[^>]*><option value="" selected>Choose…/);
      control("d", /id="f-fld_d"[^>]*type="date"/);
      control("dt", /id="f-fld_dt"[^>]*type="datetime-local"/);
      control("f", /id="f-fld_f"[^>]*type="file" accept="application\/pdf"/);
      control("img", /id="f-fld_img"[^>]*type="file" accept="image\/\*"/);
      control("sig", /id="f-fld_sig"[^>]*type="file" accept="image\/\*"/);
      control("vid", /id="f-fld_vid"[^>]*type="file" accept="video\/\*"/);
      control("aud", /id="f-fld_aud"[^>]*type="file" accept="audio\/\*"/);
      assert.match(html, /<legend>Multi<\/legend>/);
      assert.match(html, /type="checkbox" name="m" value="m2" id="f-fld_m-1"\s+checked/);
      assert.match(
        html,
        /<legend>Radio<span class="required" aria-hidden="true">\*<\/span><\/legend>/,
      );
      assert.match(html, /type="radio" name="r" value="r1" id="f-fld_r-0"\s+required/);
      assert.match(html, /<input type="hidden" name="h" value="campaign">/);
      assert.match(html, /PDF, up to 2 MB/);
      assert.doesNotMatch(html, /name="nope"/);
    });
    await t.step("multipart post to the no-JS path, with its hidden fields", () => {
      assert.match(
        html,
        new RegExp(
          `<form[^>]*method="post" action="/api/v1/submit/p/${form.id}" enctype="multipart/form-data"`,
        ),
      );
      assert.match(html, /name="_idempotency_key" value="hf_[A-Za-z0-9]{24}"/);
      assert.match(html, /name="_schema_version" value="1"/);
      assert.match(html, /<script type="module" src="\/_islands\/HostedForm.js"><\/script>/);
    });
    await t.step("the honeypot is hidden from people and screen readers", () => {
      assert.match(
        html,
        /<div class="hp" aria-hidden="true"><label>Leave this field empty<input type="text" name="_hp" tabindex="-1" autocomplete="off"><\/label><\/div>/,
      );
    });
    await t.step("each render carries its own one-time key", async () => {
      const again = await (await env.request(`/f/${form.id}`)).text();
      const key = (s: string) => /name="_idempotency_key" value="([^"]+)"/.exec(s)![1];
      assert.notEqual(key(html), key(again));
    });
  } finally {
    env.close();
  }
});

Deno.test("hosted pages - CAPTCHA widgets", async (t) => {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps);
  try {
    for (
      const [captcha, widget, script] of [
        [
          { provider: "turnstile", siteKey: "tk", secret: "s" },
          /<div class="cf-turnstile" data-sitekey="tk">/,
          /challenges\.cloudflare\.com\/turnstile\/v0\/api\.js/,
        ],
        [
          { provider: "hcaptcha", siteKey: "hk", secret: "s" },
          /<div class="h-captcha" data-sitekey="hk">/,
          /js\.hcaptcha\.com\/1\/api\.js/,
        ],
        [
          { provider: "recaptcha", siteKey: "rk", secret: "s" },
          /<div class="g-recaptcha" data-sitekey="rk">/,
          /google\.com\/recaptcha\/api\.js"/,
        ],
        [
          { provider: "altcha" },
          /<altcha-widget challenge="\/api\/v1\/forms\/p\/f[^"]+\/altcha-challenge" name="altcha">/,
          /<script type="module" src="\/_vendor\/altcha\.js"/,
        ],
      ] as const
    ) {
      await t.step(captcha.provider, async () => {
        const form = await makeForm(env.deps, ws, { ...CONTACT_FORM, captcha });
        const html = await (await env.request(`/f/${form.id}`)).text();
        assert.match(html, widget);
        assert.match(html, script);
        assert.doesNotMatch(html, /"secret"/);
      });
    }
    await t.step("ALTCHA's widget script is served from our origin", async () => {
      const res = await env.request("/_vendor/altcha.js");
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type")!, /text\/javascript/);
      assert.match(await res.text(), /altcha-widget/);
    });
  } finally {
    env.close();
  }
});

Deno.test("hosted pages - missing, closed and thank-you", async (t) => {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps);
  const form = await makeForm(env.deps, ws, CONTACT_FORM);
  try {
    await t.step("a missing form and a suspended workspace are the same 404 page", async () => {
      const missing = await env.request("/f/fNoSuchForm12");
      assert.equal(missing.status, 404);
      const a = await missing.text();
      assert.match(a, /Form not found/);
      const other = await makeWorkspace(env.deps);
      const hidden = await makeForm(env.deps, other, CONTACT_FORM);
      await updateWorkspace(env.deps, other.id, { suspended: true });
      const b = await env.request(`/f/${hidden.id}`);
      assert.equal(b.status, 404);
      assert.equal(await b.text(), a);
    });
    await t.step("a closed form says so and shows no form", async () => {
      const closed = await makeForm(env.deps, ws, { ...CONTACT_FORM, accepting: false });
      const html = await (await env.request(`/f/${closed.id}`)).text();
      assert.match(html, /not accepting responses right now/);
      assert.doesNotMatch(html, /<form/);
    });
    await t.step("thank-you page shows a well-formed reference only", async () => {
      const ok = await env.request(
        `/f/${form.id}/thanks?submission_id=sub_01jabcdefghjkmnpqrstvwxyz0`,
      );
      const html = await ok.text();
      assert.match(html, /Thank you/);
      assert.match(html, /sub_01jabcdefghjkmnpqrstvwxyz0/);
      assert.match(html, new RegExp(`href="/f/${form.id}"`));
      const junk = await (await env.request(`/f/${form.id}/thanks?submission_id=<b>x</b>`)).text();
      assert.doesNotMatch(junk, /Reference|<b>x/);
    });
  } finally {
    env.close();
  }
});
