import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import { authenticateKey, createApiKey } from "@/lib/keys/api_keys.ts";
import { getForm, listFormIds } from "@/lib/forms/forms.ts";
import { keys } from "@/lib/kv/keys.ts";
import { page, post, setup, signIn } from "@/tests/admin_support.ts";
import { contactData, postJson, testEnv } from "@/tests/helpers.ts";
import { assertCountersExact } from "@/tests/recount.ts";

Deno.test("admin - form editor", async (t) => {
  const env = await testEnv();
  try {
    const { ws } = await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const { csrf } = await page(env, cookie, "/admin/forms/new");
    const fields = [
      { name: "email", type: "email", required: true },
      { name: "age", type: "integer", min: 18, max: 120 },
      { name: "plan", type: "radio", options: ["a", "b"] },
    ];
    let formId = "";

    await t.step("creates a form with CAPTCHA, origins and redirects", async () => {
      const res = await post(env, cookie, "/admin/forms/new", {
        _csrf: csrf,
        name: "Signup",
        fields_json: JSON.stringify(fields),
        captcha_provider: "turnstile",
        captcha_site_key: "site-123",
        captcha_secret: "shh-secret-value",
        honeypot: "_trap",
        allowed_origins: "https://a.example\nhttps://b.example",
        redirect_success: "https://a.example/thanks",
        accepting: "on",
      });
      assert.equal(res.status, 303);
      formId = (res.headers.get("location") ?? "").split("/")[3].split("?")[0];
      const form = await getForm(env.deps, formId);
      assert.equal(form?.workspace_id, ws.id);
      assert.deepEqual(form?.fields.map((f) => f.name), ["email", "age", "plan"]);
      assert.equal(form?.captcha?.secret, "shh-secret-value");
      assert.deepEqual(form?.allowed_origins, ["https://a.example", "https://b.example"]);
      assert.equal(form?.redirect.success, "https://a.example/thanks");
      assert.equal(form?.schema_version, 1);
    });

    await t.step("the secret is never sent back, and a blank one is kept", async () => {
      const { html, csrf } = await page(env, cookie, `/admin/forms/${formId}/edit`);
      assert.doesNotMatch(html, /shh-secret-value/);
      assert.match(html, /Stored. Leave blank to keep it./);
      const form = (await getForm(env.deps, formId))!;
      const reordered = [form.fields[2], form.fields[0], form.fields[1]];
      const res = await post(env, cookie, `/admin/forms/${formId}/edit`, {
        _csrf: csrf,
        name: "Signup",
        fields_json: JSON.stringify(reordered),
        captcha_provider: "turnstile",
        captcha_site_key: "site-123",
        captcha_secret: "",
        honeypot: "_trap",
        allowed_origins: "",
        accepting: "on",
      });
      assert.equal(res.status, 303);
      const after = (await getForm(env.deps, formId))!;
      assert.equal(after.captcha?.secret, "shh-secret-value");
      assert.deepEqual(after.fields.map((f) => f.name), ["plan", "email", "age"]);
      // Order does not change what is valid (lib/forms/versioning.ts): no 409 for open pages.
      assert.equal(after.schema_version, 1, "reordering fields keeps the schema version");
      assert.match((await page(env, cookie, `/admin/forms/${formId}`)).html, /schema version 1/);
    });

    await t.step("an invalid definition is a 400 naming the problem, nothing saved", async () => {
      const res = await post(env, cookie, `/admin/forms/${formId}/edit`, {
        _csrf: csrf,
        name: "Signup",
        fields_json: JSON.stringify([{ name: "1bad", type: "select" }]),
        captcha_provider: "none",
      });
      assert.equal(res.status, 400);
      const html = await res.text();
      // In the editor's words, never the schema's paths.
      assert.match(html, /Field 1 &quot;1bad&quot;, Name \(data key\)/);
      assert.match(html, /Field 1 &quot;1bad&quot;, Options: required for type select/);
      assert.doesNotMatch(html, /fields\.0\./);
      assert.equal((await getForm(env.deps, formId))?.schema_version, 1);
      const junk = await post(env, cookie, `/admin/forms/${formId}/edit`, {
        _csrf: csrf,
        name: "Signup",
        fields_json: "{not json",
      });
      assert.equal(junk.status, 400);
    });

    await t.step(
      "a malformed field list is a 400 editor keeping the fields from before",
      async () => {
        const names = (html: string) =>
          // Cards start closed: each field's card still names it on its Remove button.
          [...html.matchAll(/aria-label="Remove ([^"]*)"/g)].map((m) => m[1]);
        const malformed = [
          ['{"a":1}', /Fields: expected array/],
          ['[{"name":5,"type":"text"}]', /Field 1[^:]*, Name \(data key\): expected string/],
          ['[{"type":"text"}]', /Field 1[^:]*, Name \(data key\)/],
          ['[{"name":"a","type":"text","label":7}]', /Field 1[^:]*, Label: expected string/],
          ['[{"name":"a","type":"select","options":"x"}]', /Field 1[^:]*, Options: expected/],
          ["[null]", /Field 1[^:]*: expected object/],
          ["{not json", /Fields: the field list is not valid JSON/],
        ] as const;
        const formsBefore = (await listFormIds(env.deps, ws.id)).length;
        for (const [fieldsJson, problem] of malformed) {
          const edit = await post(env, cookie, `/admin/forms/${formId}/edit`, {
            _csrf: csrf,
            name: "Renamed",
            fields_json: fieldsJson,
            captcha_provider: "none",
          });
          assert.equal(edit.status, 400, fieldsJson);
          const html = await edit.text();
          assert.match(html, /The field list could not be read/, fieldsJson);
          assert.match(html, problem, fieldsJson);
          assert.match(
            html,
            /id="form-name" name="name" [^>]*value="Renamed"/,
            "the other inputs are kept",
          );
          assert.deepEqual(names(html), ["plan", "email", "age"], fieldsJson);
          const created = await post(env, cookie, "/admin/forms/new", {
            _csrf: csrf,
            name: "New one",
            fields_json: fieldsJson,
          });
          assert.equal(created.status, 400, fieldsJson);
          const page = await created.text();
          assert.match(page, problem, fieldsJson);
          assert.deepEqual(names(page), ["name", "email", "message"], "the starter fields");
        }
        const form = await getForm(env.deps, formId);
        assert.equal(form?.name, "Signup");
        assert.equal(form?.schema_version, 1);
        assert.equal((await listFormIds(env.deps, ws.id)).length, formsBefore);
      },
    );

    await t.step("closing the form stops submissions", async () => {
      const res = await post(env, cookie, `/admin/forms/${formId}`, {
        _csrf: csrf,
        accepting: "off",
      });
      assert.equal(res.status, 303);
      assert.equal((await getForm(env.deps, formId))?.accepting, false);
    });
  } finally {
    env.close();
  }
});

Deno.test("admin - submissions, spam marking, delete, CSV", async (t) => {
  const env = await testEnv({ RATE_LIMITS: '{"submit":1000}' });
  try {
    const { form } = await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const body = contactData(i);
      if (i === 4) body.data.name = '=HYPERLINK("http://x")';
      const res = await postJson(env, `/api/v1/submit/p/${form.id}`, body);
      assert.equal(res.status, 201);
      ids.push((await res.json()).submission_id);
    }
    const base = `/admin/forms/${form.id}/submissions`;

    await t.step("the list shows them newest first, filtered by search", async () => {
      const { html } = await page(env, cookie, base);
      assert.ok(html.indexOf(ids[4]) < html.indexOf(ids[0]));
      assert.match(html, /Page 1 of 1 · 5 total/);
      const found = await page(env, cookie, `${base}?search=person2`);
      assert.match(found.html, new RegExp(ids[2]));
      assert.doesNotMatch(found.html, new RegExp(ids[3]));
      assert.match(found.html, /1 submission matches “person2”/);
      const paged = await page(env, cookie, `${base}?limit=2&page=2`);
      assert.match(paged.html, /Page 2 of 3/);
      assert.equal((await page(env, cookie, `${base}?limit=abc`)).res.status, 400);
    });

    await t.step("mark as spam and back keeps every counter exact", async () => {
      const { csrf } = await page(env, cookie, `${base}/${ids[1]}`);
      const spam = await post(env, cookie, `${base}/${ids[1]}`, { _csrf: csrf, status: "spam" });
      assert.equal(spam.status, 303);
      const stored = await readSubmission(env.deps.kv, form.id, ids[1]);
      assert.equal(stored?.status, "spam");
      assert.equal(stored?.spam?.manual, true);
      await assertCountersExact(env.deps.kv, form.id, "live");
      const list = await page(env, cookie, `${base}?status=spam`);
      assert.match(list.html, new RegExp(ids[1]));
      assert.match(list.html, /1 total/);
      // Marking twice changes nothing.
      await post(env, cookie, `${base}/${ids[1]}`, { _csrf: csrf, status: "spam" });
      await assertCountersExact(env.deps.kv, form.id, "live");
      await post(env, cookie, `${base}/${ids[1]}`, { _csrf: csrf, status: "completed" });
      await post(env, cookie, `${base}/${ids[3]}`, { _csrf: csrf, status: "spam" });
      await assertCountersExact(env.deps.kv, form.id, "live");
    });

    await t.step("CSV export follows the filters and defuses formulas", async () => {
      const res = await env.request(`/admin/forms/${form.id}/export.csv`, { headers: { cookie } });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^text\/csv/);
      assert.match(
        res.headers.get("content-disposition") ?? "",
        /attachment; filename="Contact-live.csv"/,
      );
      const lines = (await res.text()).replace(/^\uFEFF/, "").trimEnd().split("\r\n");
      assert.equal(lines[0], "id,submission_number,created_at,status,name,email,topic,metadata");
      assert.equal(lines.length, 6);
      assert.ok(lines[1].startsWith(`${ids[4]},5,`));
      assert.ok(lines[1].includes(`"'=HYPERLINK(""http://x"")"`), lines[1]);
      const spamOnly = await env.request(`/admin/forms/${form.id}/export.csv?status=spam`, {
        headers: { cookie },
      });
      const spamLines = (await spamOnly.text()).trimEnd().split("\r\n");
      assert.equal(spamLines.length, 2);
      assert.ok(spamLines[1].startsWith(`${ids[3]},4,`));
    });

    await t.step("bulk delete asks first, then deletes and keeps counters exact", async () => {
      const { csrf } = await page(env, cookie, base);
      const ask = await post(env, cookie, base, [
        ["_csrf", csrf],
        ["action", "confirm_delete"],
        ["ids", ids[0]],
        ["ids", ids[3]],
      ]);
      assert.equal(ask.status, 200);
      assert.match(await ask.text(), /Delete 2 submissions/);
      assert.notEqual((await env.deps.kv.get(keys.submission(form.id, ids[0]))).value, null);
      const done = await post(env, cookie, base, [
        ["_csrf", csrf],
        ["action", "delete"],
        ["ids", ids[0]],
        ["ids", ids[3]],
      ]);
      assert.equal(done.status, 303);
      assert.equal((await env.deps.kv.get(keys.submission(form.id, ids[0]))).value, null);
      assert.equal((await env.deps.kv.get(keys.submission(form.id, ids[3]))).value, null);
      await assertCountersExact(env.deps.kv, form.id, "live");
      assert.match((await page(env, cookie, base)).html, /3 total/);
    });
  } finally {
    env.close();
  }
});

Deno.test("admin - API keys", async (t) => {
  const env = await testEnv();
  try {
    const { ws } = await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const { csrf } = await page(env, cookie, "/admin/keys");
    let raw = "";
    let keyId = "";
    let prefix = "";

    await t.step("create shows the raw key once", async () => {
      const res = await post(env, cookie, "/admin/keys", [
        ["_csrf", csrf],
        ["name", "Backend"],
        ["type", "test"],
        ["scopes", "read"],
        ["scopes", "admin"],
      ]);
      // Post/redirect/get: the raw key is read once from a short-lived record.
      assert.equal(res.status, 303);
      const shown = await page(env, cookie, res.headers.get("location")!);
      raw = /<code class="key" id="new-key">(fw_test_[0-9A-Za-z]{38})<\/code>/.exec(shown.html)
        ?.[1] ?? "";
      assert.ok(raw, "raw key shown");
      const again = await page(env, cookie, res.headers.get("location")!);
      assert.doesNotMatch(again.html, new RegExp(raw), "a reload shows it no more");
      assert.match(again.html, /shown only once/);
      const auth = await authenticateKey(env.deps, `Bearer ${raw}`);
      keyId = auth.key.id;
      prefix = auth.key.prefix;
      assert.deepEqual(auth.key.scopes, ["read", "admin"]);
      const { html } = await page(env, cookie, "/admin/keys");
      assert.doesNotMatch(html, new RegExp(raw));
      assert.ok(raw.startsWith(prefix) && html.includes(`${prefix}…`));
    });

    await t.step("past the plan's cap the error says why", async () => {
      await createApiKey(env.deps, { workspaceId: ws.id, name: "second" });
      const res = await post(env, cookie, "/admin/keys", [["_csrf", csrf], ["name", "third"], [
        "scopes",
        "read",
      ]]);
      assert.equal(res.status, 400);
      assert.match(await res.text(), /allows 2 active API keys/);
    });

    await t.step("revoke confirms, then the key is refused", async () => {
      const ask = await page(env, cookie, `/admin/keys/${keyId}/revoke`);
      assert.equal(ask.res.status, 200);
      assert.match(ask.html, /Revoke &quot;Backend&quot;\?|Revoke "Backend"\?/);
      const res = await post(env, cookie, `/admin/keys/${keyId}/revoke`, { _csrf: csrf });
      assert.equal(res.status, 303);
      await assert.rejects(() => authenticateKey(env.deps, `Bearer ${raw}`), /Invalid API key/);
      const unknown = await post(env, cookie, "/admin/keys/key_nope/revoke", { _csrf: csrf });
      assert.equal(unknown.status, 404);
    });
  } finally {
    env.close();
  }
});
