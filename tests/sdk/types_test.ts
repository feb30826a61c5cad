/**
 * A form's data as a TypeScript module (lib/forms/typescript.ts), served at
 * `/api/v1/forms/p/<id>/types.ts` and printed by the CLI's `types`: it type-checks with a
 * real `deno check`, a data object missing a required field or holding an unknown option
 * does not, and its `validate` finds the same problems at run time.
 */
import assert from "node:assert/strict";
import { RawText, runCli } from "@/cli.ts";
import { updateForm } from "@/lib/forms/forms.ts";
import type { FormDefinition } from "@/lib/schemas.ts";
import { makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { DENO } from "@/tests/processes.ts";

const DEF: FormDefinition = {
  name: 'Job "application" */ form',
  fields: [
    {
      name: "name",
      label: "Your name",
      type: "text",
      required: true,
      maxLength: 50,
    },
    { name: "email", type: "email", required: true },
    { name: "age", type: "integer", min: 18 },
    { name: "role", type: "select", options: ["dev", "ops"], required: true },
    { name: "skills", type: "multiselect", options: ["ts", "go"] },
    { name: "consent", label: "I agree", type: "boolean", required: true },
    { name: "cv", type: "file", allowedTypes: ["application/pdf"] },
    { name: "ref.code", type: "text", pattern: "[A-Z]{3}" },
  ],
  honeypot: "_gotcha",
};

async function denoCheck(
  dir: string,
  file: string,
): Promise<{ ok: boolean; output: string }> {
  const out = await new Deno.Command(DENO, {
    args: ["check", "--no-config", file],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const text = new TextDecoder();
  return {
    ok: out.success,
    output: text.decode(out.stdout) + text.decode(out.stderr),
  };
}

Deno.test("sdk types - a form's data as a TypeScript module", async (t) => {
  const env = await testEnv();
  const form = await makeForm(env.deps, await makeWorkspace(env.deps), DEF);
  const res = await env.request(`/api/v1/forms/p/${form.id}/types.ts`);
  const source = await res.text();
  const dir = await Deno.makeTempDir({ prefix: "formwell-types-" });
  await Deno.writeTextFile(`${dir}/form.ts`, source);

  await t.step(
    "served as TypeScript, stamped with the schema version, 304 on its ETag",
    async () => {
      assert.equal(res.status, 200);
      assert.equal(
        res.headers.get("content-type"),
        "application/typescript; charset=utf-8",
      );
      assert.match(source, new RegExp(`schema version 1\\.`));
      assert.match(source, /export const schemaVersion = 1;/);
      assert.match(source, new RegExp(`export const formId = "${form.id}";`));
      const again = await env.request(`/api/v1/forms/p/${form.id}/types.ts`, {
        headers: { "if-none-match": res.headers.get("etag")! },
      });
      assert.equal(again.status, 304);
      const missing = await env.request(
        `/api/v1/forms/p/fNoSuchForm1/types.ts`,
      );
      assert.equal(missing.status, 404);
      await missing.body?.cancel();
    },
  );

  await t.step("the CLI prints the same module", async () => {
    const out = await runCli(env.deps, ["types", "--form", form.id]);
    assert.ok(out instanceof RawText);
    assert.equal(out.text, source);
  });

  await t.step("valid data type-checks with a real deno check", async () => {
    await Deno.writeTextFile(
      `${dir}/ok.ts`,
      `import { type Data, schemaVersion, validate } from "./form.ts";
const data: Data = { name: "Ada", email: "ada@example.com", role: "dev", consent: true, skills: ["ts"], "ref.code": "ABC" };
const v: 1 = schemaVersion;
const r = validate(data);
if (r.ok) console.log(r.data.name, v);
`,
    );
    const r = await denoCheck(dir, "ok.ts");
    assert.ok(r.ok, r.output);
  });

  await t.step(
    "a missing required field or an unknown option fails the type check",
    async () => {
      await Deno.writeTextFile(
        `${dir}/missing.ts`,
        `import type { Data } from "./form.ts";
export const data: Data = { email: "ada@example.com", role: "dev", consent: true };
`,
      );
      const missing = await denoCheck(dir, "missing.ts");
      assert.ok(!missing.ok);
      assert.match(missing.output, /Property 'name' is missing/);
      await Deno.writeTextFile(
        `${dir}/option.ts`,
        `import type { Data } from "./form.ts";
export const data: Data = { name: "A", email: "a@example.com", role: "boss", consent: true };
`,
      );
      const option = await denoCheck(dir, "option.ts");
      assert.ok(!option.ok);
      assert.match(option.output, /"boss"/);
    },
  );

  await t.step("validate() finds what the service would refuse", async () => {
    const mod = await import(`file://${dir}/form.ts`);
    assert.deepEqual(
      mod.validate({
        name: "A",
        email: "a@example.com",
        role: "dev",
        consent: true,
      }),
      {
        ok: true,
        data: { name: "A", email: "a@example.com", role: "dev", consent: true },
      },
    );
    const bad = mod.validate({
      email: 5,
      role: "boss",
      consent: false,
      age: 16,
      x: 1,
      "ref.code": "ab",
    });
    assert.equal(bad.ok, false);
    assert.deepEqual(
      bad.problems.map((p: { field: string; type: string }) => `${p.field}:${p.type}`),
      [
        "x:unknown_field",
        "name:required",
        "email:type",
        "age:min",
        "role:options",
        "consent:required",
        "ref.code:pattern",
      ],
    );
    assert.equal(
      mod.validate({
        _gotcha: "",
        name: "A",
        email: "a@b.co",
        role: "dev",
        consent: true,
      }).ok,
      true,
    );
  });

  await t.step("a schema change bumps the stamp", async () => {
    const v2 = await updateForm(env.deps, form.id, {
      ...DEF,
      fields: [...DEF.fields!, { name: "phone", type: "tel", required: true }],
    });
    const text = await (await env.request(`/api/v1/forms/p/${form.id}/types.ts`)).text();
    assert.match(
      text,
      new RegExp(`export const schemaVersion = ${v2.schema_version};`),
    );
    assert.match(text, /^ {2}phone: string;$/m);
  });
  await Deno.remove(dir, { recursive: true });
  env.close();
});
