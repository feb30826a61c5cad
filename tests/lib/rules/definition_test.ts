/**
 * Definitions with bad logic are refused before they are stored, each problem at its
 * path: invalid expressions, unknown operators, unknown fields, circles, bad defaults,
 * steps naming unknown fields, translations of unknown fields, options or step titles.
 */
import assert from "node:assert/strict";
import { parseFormDefinition } from "@/lib/forms/forms.ts";
import { AppError } from "@/lib/errors.ts";
import { definitionProblems, type RuleForm } from "@/lib/rules/mod.ts";

function problems(form: RuleForm): string[] {
  return definitionProblems(form).map((p) => `${p.path.join(".")}: ${p.message}`);
}

const BASE: RuleForm["fields"] = [
  { name: "kind", type: "select", options: ["a", "b"] },
  { name: "qty", type: "integer" },
];

Deno.test("definition - bad logic is named with its path", async (t) => {
  await t.step("a good definition has no problem", () => {
    assert.deepEqual(
      problems({
        fields: [
          ...BASE,
          { name: "b_only", type: "text", when: { "==": [{ var: "kind" }, "b"] } },
          { name: "twice", type: "number", compute: { "*": [{ var: "qty" }, 2] } },
          {
            name: "count",
            type: "integer",
            compute: { reduce: [[1, 2], { "+": [{ var: "current" }, { var: "accumulator" }] }, 0] },
          },
          { name: "src", type: "hidden", default: "web" },
        ],
      }),
      [],
    );
  });
  await t.step("unknown operators, invalid expressions, unknown fields", () => {
    assert.deepEqual(
      problems({
        fields: [
          ...BASE,
          { name: "x", type: "text", when: { regex: [{ var: "kind" }, "a"] } },
          { name: "y", type: "text", when: { "==": [1, 2], "!=": [1, 2] } },
          { name: "z", type: "text", when: { "==": [{ var: "nope" }, 1] } },
          { name: "w", type: "text", when: { var: { cat: ["k", "ind"] } } },
          { name: "l", type: "text", when: { log: 1 } },
        ],
      }),
      [
        'fields.2.when: invalid expression: unknown operator "regex"',
        'fields.3.when: invalid expression: an operation is an object with exactly one operator (found "==", "!=")',
        "fields.4.when: names an unknown field 'nope'",
        "fields.5.when: invalid expression: var takes a field name (a non-empty string)",
        'fields.6.when: invalid expression: unknown operator "log"',
      ],
    );
  });
  await t.step("circles, self references and computed file fields", () => {
    assert.deepEqual(
      problems({
        fields: [
          { name: "a", type: "number", compute: { "+": [{ var: "b" }, 1] } },
          { name: "b", type: "number", when: { ">": [{ var: "a" }, 1] } },
          { name: "c", type: "text", when: { var: "c" } },
          { name: "f", type: "file", compute: "x" },
        ],
      }),
      [
        "fields.2.when: reads its own field 'c'",
        "fields.3.compute: a file field cannot be computed",
        "fields.0: 'a' -> 'b' -> 'a': expressions read each other in a circle",
      ],
    );
  });
  await t.step("defaults the field would refuse", () => {
    assert.deepEqual(
      problems({
        fields: [
          { name: "kind", type: "select", options: ["a"], default: "z" },
          { name: "n", type: "integer", default: "3" },
        ],
      }),
      [
        "fields.0.default: kind must be one of the listed options.",
        "fields.1.default: n must be a number.",
      ],
    );
  });
  await t.step(
    "steps: unknown fields, a field twice, a field in none, conditions on later steps",
    () => {
      assert.deepEqual(
        problems({
          fields: [...BASE, { name: "free", type: "text" }, { name: "h", type: "hidden" }],
          steps: [
            { title: "1", fields: ["kind", "ghost"], when: { var: "qty" } },
            { title: "2", fields: ["qty", "kind"] },
          ],
        }),
        [
          "steps.0.fields.1: names an unknown field 'ghost'",
          "steps.1.fields.1: 'kind' is already in step 1",
          "fields.2.name: 'free' is in no step (every shown field belongs to one)",
          "steps.0.when: reads 'qty', which is not in an earlier step",
        ],
      );
    },
  );
  await t.step("translations of unknown step titles", () => {
    assert.deepEqual(
      problems({
        fields: BASE,
        steps: [{ title: "One", fields: ["kind"] }],
        translations: { de: { steps: { One: "Eins", Two: "Zwei" } } },
      }).filter((p) => p.startsWith("translations")),
      ["translations.de.steps.Two: 'Two' is not the title of a step"],
    );
  });
  await t.step("translations of unknown fields and options; language codes", () => {
    assert.deepEqual(
      problems({
        fields: BASE,
        default_language: "english",
        translations: {
          de: { fields: { kind: { options: { a: "A", q: "Q" } }, ghost: { label: "G" } } },
        },
      }),
      [
        "default_language: a language code like en, de or pt-BR",
        "translations.de.fields.kind.options.q: 'q' is not an option of 'kind'",
        "translations.de.fields.ghost: names an unknown field 'ghost'",
      ],
    );
  });
});

Deno.test("definition - parseFormDefinition refuses bad logic with a clear 400", () => {
  assert.throws(
    () =>
      parseFormDefinition({
        name: "F",
        fields: [{ name: "a", type: "text", when: { "===": [{ var: "missing_field" }, 1] } }],
      }),
    (err: unknown) =>
      err instanceof AppError && err.status === 400 &&
      /fields\.0\.when: names an unknown field 'missing_field'/.test(err.message),
  );
});
