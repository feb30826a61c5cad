/// <reference lib="dom" />
import assert from "node:assert/strict";
import { embedSnippet, escapeHtml } from "@/lib/forms/embed.ts";
import { embedSnippets } from "@/lib/admin/embed.ts";
import type { Form } from "@/lib/schemas.ts";

function form(over: Partial<Form> = {}): Form {
  return {
    id: "fEmbed123",
    workspace_id: "ws_1",
    name: "Contact",
    fields: [
      { id: "fld_name", name: "name", label: "Your <name>", type: "text", required: true },
      { id: "fld_topic", name: "topic", type: "select", required: false, options: ["a&b", "c"] },
      { id: "fld_kind", name: "kind", type: "radio", required: true, options: ["x", "y"] },
      { id: "fld_ok", name: "ok", type: "boolean", required: false },
    ],
    captcha: null,
    honeypot: "_gotcha",
    allowed_origins: [],
    accepting: true,
    redirect: {},
    schema_version: 1,
    created_at: "",
    updated_at: "",
    ...over,
  };
}

Deno.test("embed - the plain HTML snippet", async (t) => {
  await t.step("posts to the no-JS path with labelled, escaped fields", () => {
    const html = embedSnippet(form(), "https://forms.example");
    assert.match(
      html,
      /<form id="formwell-fEmbed123" action="https:\/\/forms\.example\/api\/v1\/submit\/p\/fEmbed123" method="POST">/,
    );
    assert.doesNotMatch(html, /enctype/);
    assert.match(
      html,
      /<label for="fw-fld_name">Your &lt;name&gt; <span aria-hidden="true">\*<\/span><\/label>/,
    );
    assert.match(html, /<input id="fw-fld_name" type="text" name="name" required>/);
    assert.match(html, /<option value="a&amp;b">a&amp;b<\/option>/);
    assert.match(html, /<legend>kind <span aria-hidden="true">\*<\/span><\/legend>/);
    assert.match(html, /<input type="checkbox" name="ok" value="true">/);
    assert.match(html, /<button type="submit">/);
  });
  await t.step("the honeypot is off-screen, aria-hidden, untabbable, not autofilled", () => {
    const html = embedSnippet(form(), "https://forms.example");
    assert.match(html, /<div aria-hidden="true" style="position:absolute;left:-10000px/);
    assert.match(html, /name="_gotcha" tabindex="-1" autocomplete="off"/);
    assert.doesNotMatch(embedSnippet(form({ honeypot: null }), "https://f.example"), /tabindex/);
  });
  await t.step("file fields make it multipart; CAPTCHA widgets per provider", () => {
    const files = form({
      fields: [{
        id: "fld_cv",
        name: "cv",
        type: "file",
        required: false,
        allowedTypes: ["application/pdf"],
      }],
    });
    const html = embedSnippet(files, "https://f.example");
    assert.match(html, /enctype="multipart\/form-data"/);
    assert.match(html, /type="file" name="cv" accept="application\/pdf"/);
    const altcha = embedSnippet(form({ captcha: { provider: "altcha" } }), "https://f.example");
    assert.match(
      altcha,
      /<altcha-widget challenge="https:\/\/f\.example\/api\/v1\/forms\/p\/fEmbed123\/altcha-challenge" name="altcha">/,
    );
    assert.match(altcha, /<script type="module" src="https:\/\/f\.example\/_vendor\/altcha\.js"/);
    const ts = embedSnippet(
      form({ captcha: { provider: "turnstile", siteKey: 'k"1', secret: "s" } }),
      "https://f.example",
    );
    assert.match(ts, /<div class="cf-turnstile" data-sitekey="k&quot;1"><\/div>/);
    assert.doesNotMatch(ts, /"s"/);
  });
  await t.step("logic: defaults, no input for computed, conditional not required", () => {
    const html = embedSnippet(
      form({
        fields: [
          { id: "fld_kind", name: "kind", type: "radio", required: true, options: ["p", "c"] },
          {
            id: "fld_co",
            name: "company",
            type: "text",
            required: true,
            when: { "==": [{ var: "kind" }, "c"] },
          },
          { id: "fld_qty", name: "qty", type: "integer", required: true, default: 2 },
          {
            id: "fld_total",
            name: "total",
            type: "number",
            required: false,
            compute: { "*": [{ var: "qty" }, 3] },
          },
          { id: "fld_src", name: "utm_source", type: "hidden", required: false, default: "site" },
        ],
      }),
      "https://forms.example",
    );
    assert.match(html, /<input id="fw-fld_co" type="text" name="company">/);
    assert.match(html, /<input id="fw-fld_qty" type="number" name="qty" value="2" required/);
    assert.ok(!/name="total"/.test(html), "a computed field has no input");
    assert.match(html, /<!-- total is computed by Formwell/);
    assert.match(html, /<input type="hidden" name="utm_source" value="site">/);
    // Hidden fields are filled from the page's query string, after the form.
    assert.match(html, /<\/form>\n<script>\n[^]*getElementById\("formwell-fEmbed123"\)/);
    assert.match(html, /new URLSearchParams\(location\.search\)/);
    assert.ok(!/URLSearchParams/.test(embedSnippet(form(), "https://forms.example")));
  });

  await t.step("escapeHtml covers the five characters", () => {
    assert.equal(
      escapeHtml(`<a href="x" title='y'>&</a>`),
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
    );
  });
});

Deno.test("embed - the admin's snippets never pin a schema version", async (t) => {
  const f = form({ schema_version: 7, translations: { de: {} } });
  const s = embedSnippets(f, "https://forms.example");
  await t.step("no snippet carries the version number", () => {
    const { htmlIn, ...rest } = s;
    const texts = {
      ...rest,
      ...Object.fromEntries(Object.entries(htmlIn).map(([l, t]) => [`html ${l}`, t])),
    };
    for (const [name, text] of Object.entries(texts)) {
      assert.doesNotMatch(text, /schema_version"?\s*[:=]\s*\d|_schema_version/, name);
      assert.doesNotMatch(text, /\b7\b/, name);
    }
  });
  await t.step("the client snippet loads the library, reads the schema, enhances the form", () => {
    assert.match(
      s.client,
      /import \{ Formwell \} from "https:\/\/forms\.example\/sdk\/formwell\.js"/,
    );
    assert.match(s.client, /fw\.schema\("fEmbed123"\)/);
    assert.match(s.client, /fw\.enhance\(document\.getElementById\("formwell-fEmbed123"\)\)/);
    assert.match(s.html, /<form id="formwell-fEmbed123"/, "the id the client snippet finds");
  });
  await t.step("the fetch snippet reads the schema at load and sends its version", () => {
    assert.match(s.fetch, /fetch\("https:\/\/forms\.example\/api\/v1\/forms\/p\/fEmbed123"\)/);
    assert.match(s.fetch, /schema_version: version/);
    assert.ok(s.fetch.indexOf("/forms/p/") < s.fetch.indexOf("async function send"));
  });
});

Deno.test("embed - the snippet speaks the form's languages", async (t) => {
  const f = form({
    default_language: "de",
    translations: {
      fr: {
        form: { submit: "Envoyer la demande" },
        fields: { name: { label: "Votre nom" }, topic: { options: { c: "Cé" } } },
      },
      ar: { fields: { name: { label: "اسمك" } } },
    },
  });
  await t.step("the default language: the prompt and button in it, no lang attribute", () => {
    const html = embedSnippet(f, "https://forms.example.com");
    assert.match(html, /<option value="">Bitte wählen…<\/option>/);
    assert.match(html, /<button type="submit">Senden<\/button>/);
    assert.doesNotMatch(html, /Choose…/);
    assert.doesNotMatch(html, /<form[^>]* lang=/);
  });
  await t.step("another language: its texts, words and lang", () => {
    const html = embedSnippet(f, "https://forms.example.com", "fr");
    assert.match(html, /<form [^>]*lang="fr">/);
    assert.match(html, /<option value="">Choisir…<\/option>/);
    assert.match(html, />Votre nom </);
    // The option's value never changes, only its text.
    assert.match(html, /<option value="c">Cé<\/option>/);
    assert.match(html, /<button type="submit">Envoyer la demande<\/button>/);
  });
  await t.step("right to left where the language is", () => {
    const html = embedSnippet(f, "https://forms.example.com", "ar");
    assert.match(html, /<form [^>]*lang="ar" dir="rtl">/);
    assert.match(html, /اسمك/);
  });
  await t.step("the admin shows one snippet per other language", () => {
    const s = embedSnippets(f, "https://forms.example.com");
    assert.deepEqual(Object.keys(s.htmlIn), ["ar", "fr"]);
    assert.match(s.htmlIn.fr, /Votre nom/);
  });
});
