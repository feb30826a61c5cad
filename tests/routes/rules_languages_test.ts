/**
 * The 422 in the visitor's language (`?lang=`, then `Accept-Language`, then the form's
 * default), with the same `type` and `code`; `/validate?step=` checks one step; a
 * definition with bad logic is refused by the CLI with its path.
 */
import assert from "node:assert/strict";
import { runCli } from "@/cli.ts";
import type { FormDefinition } from "@/lib/schemas.ts";
import { makeForm, makeWorkspace, postJson, testEnv } from "@/tests/helpers.ts";
import { LOGIC_FORM } from "@/tests/rules_cases.ts";

const GERMAN: FormDefinition = {
  ...LOGIC_FORM,
  translations: {
    de: { fields: { company: { label: "Firma" }, agree: { label: "Ich stimme zu." } } },
    ar: { fields: { company: { label: "الشركة" } } },
  },
};

Deno.test("rules languages - the 422 follows the visitor's language", async (t) => {
  const env = await testEnv({ RATE_LIMITS: JSON.stringify({ submit: 10000, validate: 10000 }) });
  const form = await makeForm(env.deps, await makeWorkspace(env.deps), GERMAN);
  const data = { kind: "company", agree: false };
  const submit = (query: string, headers: Record<string, string> = {}) =>
    postJson(env, `/api/v1/submit/p/${form.id}${query}`, { data }, headers);

  const en = await (await submit("")).json();
  await t.step("English by default", () => {
    assert.equal(en.code, "validation_failed");
    assert.deepEqual(en.errors.map((e: { message: string }) => e.message), [
      "Company is required.",
      "Please tick “I accept the terms”.",
    ]);
  });
  await t.step("?lang=de: German messages and summary, the same type and code", async () => {
    const res = await submit("?lang=de");
    assert.equal(res.status, 422);
    const de = await res.json();
    assert.equal(de.code, en.code);
    assert.equal(de.error, "Die Einsendung enthält ungültige Felder.");
    assert.deepEqual(de.errors.map((e: { type: string }) => e.type), ["required", "required"]);
    assert.deepEqual(de.errors.map((e: { message: string }) => e.message), [
      "Firma ist ein Pflichtfeld.",
      "Bitte „Ich stimme zu“ ankreuzen.",
    ]);
  });
  await t.step(
    "Accept-Language picks a language the form has; an unknown one is English",
    async () => {
      const ar = await (await submit("", { "accept-language": "fr;q=0.9, ar;q=0.8" })).json();
      assert.equal(ar.errors[0].message, "الحقل «الشركة» مطلوب.");
      const fr = await (await submit("", { "accept-language": "fr" })).json();
      assert.equal(fr.errors[0].message, "Company is required.");
    },
  );
  await t.step("validate answers in the same language and checks one step", async () => {
    const v = await postJson(env, `/api/v1/forms/p/${form.id}/validate?lang=de&step=1`, { data });
    assert.equal(v.status, 422);
    const body = await v.json();
    assert.deepEqual(body.errors.map((e: { field: string }) => e.field), ["company"]);
    assert.equal(body.errors[0].message, "Firma ist ein Pflichtfeld.");
    const two = await postJson(env, `/api/v1/forms/p/${form.id}/validate?step=2`, {
      data: { kind: "person", agree: true },
    });
    assert.equal(two.status, 200);
    const bad = await postJson(env, `/api/v1/forms/p/${form.id}/validate?step=x`, { data });
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
  });
  env.close();
});

Deno.test("rules languages - the CLI refuses bad logic with its path", async () => {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps);
  const dir = await Deno.makeTempDir();
  const file = `${dir}/form.json`;
  await Deno.writeTextFile(
    file,
    JSON.stringify({
      name: "Bad",
      fields: [
        { name: "a", type: "text", when: { regex: [{ var: "a" }] } },
        { name: "b", type: "text", compute: { "+": [{ var: "ghost" }, 1] } },
      ],
      steps: [{ title: "One", fields: ["a", "b", "nope"] }],
    }),
  );
  await assert.rejects(
    () => runCli(env.deps, ["form", "create", "--workspace", ws.id, "--file", file]),
    (err: Error) =>
      /fields\.0\.when: invalid expression: unknown operator "regex"/.test(err.message) &&
      /fields\.1\.compute: names an unknown field 'ghost'/.test(err.message) &&
      /steps\.0\.fields\.2: names an unknown field 'nope'/.test(err.message),
  );
  await Deno.remove(dir, { recursive: true });
  env.close();
});
