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
    assert.equal(validityChanged({ fields: BASE }, { fields: edited }), false);
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
    for (const c of cases) {
      assert.equal(validityChanged({ fields: BASE }, { fields: c }), true, JSON.stringify(c));
    }
  });
  await t.step("when, compute, default and steps do; step titles do not", () => {
    const when = { "==": [{ var: "b" }, "x"] };
    const withWhen: Field[] = [{ ...BASE[0], when }, BASE[1]];
    const steps = [{ title: "One", fields: ["a", "b"] }];
    for (
      const c of [
        { fields: withWhen },
        { fields: [{ ...BASE[0], compute: { cat: ["x"] } }, BASE[1]] },
        { fields: [{ ...BASE[0], default: "x" }, BASE[1]] },
        { fields: BASE, steps },
      ]
    ) {
      assert.equal(validityChanged({ fields: BASE }, c), true, JSON.stringify(c));
    }
    assert.equal(
      validityChanged({ fields: withWhen }, {
        fields: [{ ...BASE[0], when: { ...when } }, BASE[1]],
      }),
      false,
    );
    assert.equal(
      validityChanged({ fields: BASE, steps }, {
        fields: BASE,
        steps: [{ title: "Renamed", fields: ["b", "a"] }],
      }),
      false,
    );
    assert.equal(
      validityChanged({ fields: BASE, steps }, {
        fields: BASE,
        steps: [{ title: "One", fields: ["a", "b"], when: { var: "a" } }],
      }),
      true,
    );
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
      const translated = await updateForm(env.deps, form.id, {
        ...def,
        fields: [{ ...BASE[0], maxLength: 3 }, BASE[1]],
        default_language: "en",
        translations: { de: { fields: { a: { label: "A auf Deutsch" } } } },
      });
      assert.equal(translated.schema_version, 2, "translations are display only");
      const conditional = await updateForm(env.deps, form.id, {
        ...def,
        fields: [{ ...BASE[0], maxLength: 3, when: { "==": [{ var: "b" }, "y"] } }, BASE[1]],
      });
      assert.equal(conditional.schema_version, 3);
      assert.deepEqual(conditional.translations, translated.translations, "omitted keeps them");
    } finally {
      env.close();
    }
  });
});
