import assert from "node:assert/strict";
import { updateForm } from "@/lib/forms/forms.ts";
import { validityChanged } from "@/lib/forms/versioning.ts";
import type { Field, FormDefinition } from "@/lib/schemas.ts";
import { makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";

const BASE: Field[] = [
  { id: "fld_a", name: "a", type: "text", required: true, label: "A", help: "h", maxLength: 5 },
  { id: "fld_b", name: "b", type: "select", required: false, options: ["x", "y"] },
];

Deno.test("versioning - which edits change validity", async (t) => {
  await t.step("labels, help, placeholders and order do not", () => {
    const edited: Field[] = [
      { ...BASE[1], options: ["y", "x"], label: "Bee" },
      { ...BASE[0], label: "Ay", help: "other", placeholder: "type here" },
    ];
    assert.equal(validityChanged(BASE, edited), false);
  });
  await t.step("names, types, rules, options and required do", () => {
    const cases: Field[][] = [
      [{ ...BASE[0], name: "a2" }, BASE[1]],
      [{ ...BASE[0], type: "textarea" }, BASE[1]],
      [{ ...BASE[0], maxLength: 6 }, BASE[1]],
      [{ ...BASE[0], required: false }, BASE[1]],
      [BASE[0], { ...BASE[1], options: ["x", "y", "z"] }],
      [BASE[0]],
      [...BASE, { id: "fld_c", name: "c", type: "text", required: false }],
    ];
    for (const c of cases) assert.equal(validityChanged(BASE, c), true, JSON.stringify(c));
  });
  await t.step("updateForm raises schema_version only for those", async () => {
    const env = await testEnv();
    try {
      const def: FormDefinition = { name: "F", fields: BASE };
      const form = await makeForm(env.deps, await makeWorkspace(env.deps), def);
      const relabel = await updateForm(env.deps, form.id, {
        ...def,
        name: "Renamed form",
        intro: "Hello",
        fields: [{ ...BASE[1], label: "Choice" }, { ...BASE[0], help: "new help" }],
      });
      assert.equal(relabel.schema_version, 1);
      assert.equal(relabel.intro, "Hello");
      const stricter = await updateForm(env.deps, form.id, {
        ...def,
        fields: [{ ...BASE[0], maxLength: 3 }, BASE[1]],
      });
      assert.equal(stricter.schema_version, 2);
      assert.equal(stricter.intro, undefined, "a definition without intro clears it");
    } finally {
      env.close();
    }
  });
});
