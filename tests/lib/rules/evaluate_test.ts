/**
 * The rules module on its own: conditions hide fields (never required, values dropped),
 * computed fields ignore sent values, defaults fill absent keys, steps hide their fields
 * and check one at a time, and a form's expressions are compiled once per version.
 */
import assert from "node:assert/strict";
import { compileRules, evaluate, evaluateForm, type RuleForm } from "@/lib/rules/mod.ts";
import { compileExpression, runExpression } from "@/lib/rules/logic.ts";

const ORDER: RuleForm = {
  id: "fOrder",
  schema_version: 1,
  updated_at: "2026-01-01T00:00:00.000Z",
  honeypot: "_gotcha",
  fields: [
    { name: "kind", type: "radio", options: ["person", "company"], required: true },
    {
      name: "company",
      type: "text",
      label: "Company",
      required: true,
      when: { "==": [{ var: "kind" }, "company"] },
    },
    {
      name: "vat",
      type: "text",
      required: true,
      when: { "!!": { var: "company" } },
    },
    { name: "qty", type: "integer", min: 1, default: 1 },
    { name: "price", type: "number", default: 9.5 },
    { name: "total", type: "number", compute: { "*": [{ var: "qty" }, { var: "price" }] } },
    { name: "source", type: "hidden", default: "web" },
    { name: "agree", type: "boolean", required: true },
  ],
};

Deno.test("rules - conditional fields", async (t) => {
  await t.step("a hidden field is never required and its sent value is dropped", () => {
    const r = evaluateForm(ORDER, {
      kind: "person",
      company: "Acme",
      vat: "X1",
      agree: true,
    });
    assert.deepEqual(r.errors, []);
    assert.equal(r.shown.company, false);
    assert.equal(r.required.company, false);
    assert.equal("company" in r.values, false);
    assert.equal("vat" in r.values, false, "a field reading a hidden one sees it empty");
  });
  await t.step("a shown conditional field is required and stored", () => {
    const r = evaluateForm(ORDER, { kind: "company", agree: true });
    assert.deepEqual(r.errors.map((e) => [e.field, e.type, e.message]), [
      ["company", "required", "Company is required."],
    ]);
    assert.equal(r.required.company, true);
    assert.equal(r.required.vat, false, "vat's condition reads company, which is empty");
    const ok = evaluateForm(ORDER, { kind: "company", company: "Acme", vat: "X1", agree: true });
    assert.deepEqual(ok.errors, []);
    assert.equal(ok.values.company, "Acme");
    assert.equal(ok.values.vat, "X1");
  });
  await t.step("unknown keys are still refused, the honeypot is not", () => {
    const r = evaluateForm(ORDER, { kind: "person", agree: true, _gotcha: "", other: 1 });
    assert.deepEqual(r.errors.map((e) => [e.field, e.type]), [["other", "unknown_field"]]);
  });
});

Deno.test("rules - computed fields and defaults", async (t) => {
  await t.step("the server's value replaces a sent one, typed as the field", () => {
    const r = evaluateForm(ORDER, { kind: "person", agree: true, qty: 3, total: 1 });
    assert.equal(r.values.total, 28.5);
    assert.equal(r.computed.total, 28.5);
    assert.deepEqual(r.errors, []);
  });
  await t.step("defaults fill absent keys, never a sent empty value", () => {
    const r = evaluateForm(ORDER, { kind: "person", agree: true });
    assert.equal(r.values.qty, 1);
    assert.equal(r.values.source, "web");
    assert.equal(r.values.total, 9.5);
    const cleared = evaluateForm(ORDER, { kind: "person", agree: true, source: "" });
    assert.equal("source" in cleared.values, false);
  });
  await t.step("form posts are coerced before expressions read them", () => {
    const r = evaluateForm(ORDER, {
      kind: "company",
      company: "A",
      vat: "V",
      qty: "2",
      agree: "on",
    }, {
      source: "form",
    });
    assert.deepEqual(r.errors, []);
    assert.equal(r.values.total, 19);
  });
  await t.step("an unticked box of a form post is not filled from its default", () => {
    const form: RuleForm = { fields: [{ name: "news", type: "boolean", default: true }] };
    assert.equal(evaluateForm(form, {}, { source: "form" }).values.news, undefined);
    assert.equal(evaluateForm(form, {}).values.news, true);
  });
  await t.step("a computed value is checked by the field's rules", () => {
    const form: RuleForm = {
      fields: [
        { name: "a", type: "number" },
        { name: "double", type: "integer", max: 10, compute: { "*": [{ var: "a" }, 2] } },
      ],
    };
    assert.deepEqual(evaluateForm(form, { a: 6 }).errors.map((e) => e.type), ["max"]);
    assert.equal(evaluateForm(form, { a: 2.4 }).values.double, 5);
    // null * 2 is NaN in json-logic-js: a result that is not a finite number stores nothing.
    assert.equal("double" in evaluateForm(form, {}).values, false);
  });
});

Deno.test("rules - steps", async (t) => {
  const form: RuleForm = {
    fields: [
      { name: "kind", type: "select", options: ["a", "b"], required: true },
      { name: "name", type: "text", required: true },
      { name: "extra", type: "text", required: true },
    ],
    steps: [
      { title: "One", fields: ["kind", "name"] },
      { title: "Two", fields: ["extra"], when: { "==": [{ var: "kind" }, "b"] } },
    ],
  };
  await t.step("a step whose condition is false hides its fields", () => {
    const r = evaluateForm(form, { kind: "a", name: "N", extra: "x" });
    assert.deepEqual(r.steps, [true, false]);
    assert.deepEqual(r.errors, []);
    assert.equal("extra" in r.values, false);
  });
  await t.step("a step is checked on its own", () => {
    const rules = compileRules(form);
    assert.deepEqual(evaluate(rules, { kind: "b" }, { step: 0 }).errors.map((e) => e.field), [
      "name",
    ]);
    assert.deepEqual(evaluate(rules, { kind: "b" }, { step: 1 }).errors.map((e) => e.field), [
      "extra",
    ]);
  });
});

Deno.test("rules - compiled once per form version", () => {
  const a = compileRules(ORDER);
  assert.equal(compileRules({ ...ORDER, fields: [...ORDER.fields] }), a, "same id and version");
  assert.notEqual(compileRules({ ...ORDER, schema_version: 2 }), a);
  assert.notEqual(compileRules({ ...ORDER, updated_at: "2026-01-02T00:00:00.000Z" }), a);
  const bare = { fields: ORDER.fields };
  assert.equal(compileRules(bare), compileRules({ fields: ORDER.fields }), "same field list");
});

Deno.test("rules - an expression's result is reused only for the same plain values", () => {
  const c = compileExpression({ if: [{ "==": [{ var: "a" }, "1"] }, "text", { var: "n" }] });
  assert.deepEqual(c.reads, ["a", "n"]);
  assert.equal(runExpression(c, { a: "1", n: 5 }), "text");
  assert.equal(runExpression(c, { a: 1, n: 5 }), "text", "json-logic's loose ==");
  assert.equal(runExpression(c, { a: "2", n: 5 }), 5);
  assert.equal(runExpression(c, { a: "2", n: 6 }), 6);
  assert.equal(runExpression(c, { a: "2" }), null);
  assert.equal(c.memo.size, 5, "one result per distinct set of values");
  const list = compileExpression({ merge: [{ var: "xs" }, ["z"]] });
  const first = runExpression(list, { xs: ["a"] }) as string[];
  first.push("changed");
  assert.deepEqual(runExpression(list, { xs: ["a"] }), ["a", "z"], "lists are not shared");
  assert.equal(list.memo.size, 0);
});
