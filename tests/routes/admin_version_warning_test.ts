/**
 * The form editor warns before a save that raises the schema version (and only then), and
 * the Overview's snippets never pin a version.
 */
import assert from "node:assert/strict";
import { getForm, updateForm } from "@/lib/forms/forms.ts";
import { page, post, setup, signIn } from "@/tests/admin_support.ts";
import { testEnv } from "@/tests/helpers.ts";

Deno.test("admin - a save that raises the schema version asks first", async (t) => {
  const env = await testEnv();
  try {
    const { form } = await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const edit = `/admin/forms/${form.id}/edit`;
    const { csrf } = await page(env, cookie, edit);
    const added = [...form.fields, { name: "company", type: "text" }];
    const save = (extra: Record<string, string> = {}, fields: unknown[] = added) =>
      post(env, cookie, edit, {
        _csrf: csrf,
        name: form.name,
        fields_json: JSON.stringify(fields),
        captcha_provider: "none",
        honeypot: form.honeypot ?? "",
        accepting: "on",
        ...extra,
      });

    await t.step("a label-only edit saves at once, same version", async () => {
      const relabelled = form.fields.map((f, i) => i === 0 ? { ...f, label: "Full name" } : f);
      const res = await save({}, relabelled);
      assert.equal(res.status, 303);
      assert.equal((await getForm(env.deps, form.id))?.schema_version, 1);
    });

    await t.step("adding a field: warned, nothing saved, the edit kept on the page", async () => {
      const res = await save({ captcha_secret: "typed-secret" });
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.match(html, /role="alert" id="version-warning"/);
      assert.match(html, /schema version 2/);
      assert.match(html, /name="confirm_version" value="1"/);
      assert.match(html, /Save as schema version 2/);
      assert.match(html, /company/, "the added field is still in the editor");
      assert.match(html, /Type the new CAPTCHA secret key again/);
      assert.doesNotMatch(html, /typed-secret/);
      const stored = (await getForm(env.deps, form.id))!;
      assert.equal(stored.schema_version, 1);
      assert.equal(stored.fields.length, form.fields.length);
    });

    await t.step("confirmed for the current version: saved as version 2", async () => {
      const res = await save({ confirm_version: "1" });
      assert.equal(res.status, 303);
      const stored = (await getForm(env.deps, form.id))!;
      assert.equal(stored.schema_version, 2);
      assert.ok(stored.fields.some((f) => f.name === "company"));
    });

    await t.step("a confirmation for an older version asks again", async () => {
      // Someone else saved a version-raising change meanwhile.
      const now = (await getForm(env.deps, form.id))!;
      await updateForm(env.deps, form.id, {
        name: now.name,
        fields: [...now.fields, { name: "phone", type: "tel" }],
        honeypot: now.honeypot,
      });
      const fields = [...now.fields, { name: "city", type: "text" }];
      const res = await save({ confirm_version: "2" }, fields);
      assert.equal(res.status, 200);
      assert.match(await res.text(), /name="confirm_version" value="3"/);
      assert.equal((await getForm(env.deps, form.id))?.schema_version, 3);
    });
  } finally {
    env.close();
  }
});

Deno.test("admin - the Overview's snippets never pin a schema version", async () => {
  const env = await testEnv({ PUBLIC_BASE_URL: "https://forms.example" });
  try {
    const { form } = await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const { html } = await page(env, cookie, `/admin/forms/${form.id}`);
    assert.doesNotMatch(html, /schema_version(&quot;|")?\s*:\s*\d/);
    assert.doesNotMatch(html, /name="_schema_version"/);
    assert.match(html, /https:\/\/forms\.example\/sdk\/formwell\.js/);
    assert.match(html, /fw\.schema\(/);
  } finally {
    env.close();
  }
});
