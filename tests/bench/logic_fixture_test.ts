/**
 * The logic row's form is what the row claims (ten fields, five conditions, one computed
 * field) and its data is valid, exercising both sides of the conditions.
 */
import assert from "node:assert/strict";
import { LOGIC_FIELDS, logicFieldData } from "@/bench/fixtures.ts";
import { validateData } from "@/lib/forms/validator.ts";
import { makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";

Deno.test("bench logic fixture - ten fields, five conditions, one computed, valid data", async () => {
  assert.equal(LOGIC_FIELDS.length, 10);
  assert.equal(LOGIC_FIELDS.filter((f) => f.when !== undefined).length, 5);
  assert.equal(LOGIC_FIELDS.filter((f) => f.compute !== undefined).length, 1);
  const env = await testEnv();
  const form = await makeForm(env.deps, await makeWorkspace(env.deps), {
    name: "Logic",
    fields: LOGIC_FIELDS,
  });
  const r = validateData(form, logicFieldData("x"));
  assert.deepEqual(r.errors, []);
  assert.equal(r.values.total, 3000, "computed");
  assert.equal(r.values.company, "Analytical Engines Ltd", "a shown conditional field");
  assert.equal("newsletter" in r.values, false, "a hidden field's value dropped");
  env.close();
});
