/**
 * The shared case table (tests/rules_cases.ts) through every consumer of the form rules:
 * the rules module itself, server submit (and what it stores), `/validate`, the client
 * library's check on the public schema, and the generated TypeScript module (its
 * `validate` at run time, its `Data` type under a real `deno check`). All give the same
 * problems with the same messages. The hosted page runs the same table in Chromium
 * (tests/browser/rules_cases_test.ts).
 */
import assert from "node:assert/strict";
import { evaluateForm } from "@/lib/rules/mod.ts";
import { checkData } from "@/sdk/src/validate.ts";
import type { PublicSchema } from "@/sdk/src/types.ts";
import { makeForm, makeKey, makeWorkspace, postJson, testEnv } from "@/tests/helpers.ts";
import { DENO } from "@/tests/processes.ts";
import { LOGIC_FORM, RULE_CASES } from "@/tests/rules_cases.ts";

type Problem = { field: string; type: string; message: string };
const lines = (ps: Problem[]) => ps.map((p) => `${p.field}:${p.type}:${p.message}`);

Deno.test("rules consumers - one table, the same answers everywhere", async (t) => {
  const env = await testEnv({ RATE_LIMITS: JSON.stringify({ submit: 10000, validate: 10000 }) });
  const ws = await makeWorkspace(env.deps);
  const form = await makeForm(env.deps, ws, LOGIC_FORM);
  const key = await makeKey(env.deps, ws, { scopes: ["submit", "read"] });
  const schema: PublicSchema = await (await env.request(`/api/v1/forms/p/${form.id}`)).json();
  const dir = await Deno.makeTempDir({ prefix: "formwell-rules-" });
  const typesRes = await env.request(`/api/v1/forms/p/${form.id}/types.ts`);
  assert.equal(typesRes.status, 200);
  await Deno.writeTextFile(`${dir}/form.ts`, await typesRes.text());
  const generated = await import(`file://${dir}/form.ts`);

  for (const c of RULE_CASES) {
    await t.step(c.name, async () => {
      const direct = evaluateForm(form, c.data);
      assert.deepEqual(direct.errors.map((e) => `${e.field}:${e.type}`), c.errors, "rules");
      const expected = lines(direct.errors);

      const validate = await postJson(env, `/api/v1/forms/p/${form.id}/validate`, { data: c.data });
      const validated = await validate.json();
      assert.equal(validate.status, c.errors.length ? 422 : 200, JSON.stringify(validated));
      assert.deepEqual(lines(validated.errors ?? []), expected, "validate");

      const submit = await postJson(env, `/api/v1/submit/p/${form.id}`, { data: c.data });
      const submitted = await submit.json();
      assert.equal(submit.status, c.errors.length ? 422 : 201, JSON.stringify(submitted));
      assert.deepEqual(lines(submitted.errors ?? []), expected, "submit");
      if (!c.errors.length) {
        const read = await env.request(
          `/api/v1/server/forms/${form.id}/submissions/${submitted.submission_id}`,
          { headers: { authorization: `Bearer ${key}` } },
        );
        const stored = (await read.json()).submission.fields;
        assert.deepEqual(stored, c.stored, "stored by submit");
        assert.deepEqual(stored, direct.values, "stored = the rules' values");
      }

      const client = checkData(
        schema.form.fields,
        c.data,
        schema.form.honeypot,
        schema.form.steps,
      );
      assert.deepEqual(lines(client), expected, "client library");

      const typed = generated.validate(c.data);
      assert.deepEqual(lines(typed.ok ? [] : typed.problems), expected, "generated validate");
    });
  }

  await t.step("the generated Data type accepts exactly the cases marked typeCheck", async () => {
    const files = RULE_CASES.map((c, i) => {
      const file = `case_${i}.ts`;
      Deno.writeTextFileSync(
        `${dir}/${file}`,
        `import type { Data } from "./form.ts";\nexport const data: Data = ${
          JSON.stringify(c.data)
        };\n`,
      );
      return file;
    });
    const out = await new Deno.Command(DENO, {
      args: ["check", "--no-config", ...files],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    const failing = RULE_CASES.map((c, i) => ({ c, fails: text.includes(`case_${i}.ts:`) }));
    for (const { c, fails } of failing) assert.equal(!fails, c.typeCheck, `${c.name}\n${text}`);
  });

  await Deno.remove(dir, { recursive: true });
  env.close();
});
