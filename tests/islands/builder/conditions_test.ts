import assert from "node:assert/strict";
import {
  describeLogic,
  type FieldRef,
  fromLogic,
  type GroupCond,
  namesIn,
  renameVar,
  toLogic,
} from "@/islands/builder/conditions.ts";

const FIELDS: FieldRef[] = [
  { name: "kind", label: "Customer", type: "radio", options: ["person", "company"] },
  { name: "qty", label: "Quantity", type: "integer", options: [] },
  { name: "tags", label: "Tags", type: "multiselect", options: ["a", "b"] },
  { name: "agree", label: "Agree", type: "boolean", options: [] },
  { name: "note", label: "", type: "text", options: [] },
];

Deno.test("builder conditions - rules and groups to JSON Logic and back", async (t) => {
  await t.step("a lone rule is the bare comparison, typed as its field", () => {
    const g: GroupCond = {
      kind: "group",
      mode: "all",
      items: [{ kind: "rule", field: "qty", op: "gt", value: "10" }],
    };
    assert.deepEqual(toLogic(g, FIELDS), { ">": [{ var: "qty" }, 10] });
    assert.deepEqual(fromLogic(toLogic(g, FIELDS)), {
      ...g,
      items: [{ kind: "rule", field: "qty", op: "gt", value: "10" }],
    });
  });

  await t.step("all/any with a nested group; every operator round-trips", () => {
    const g: GroupCond = {
      kind: "group",
      mode: "any",
      items: [
        { kind: "rule", field: "kind", op: "eq", value: "company" },
        {
          kind: "group",
          mode: "all",
          items: [
            { kind: "rule", field: "tags", op: "contains", value: "b" },
            { kind: "rule", field: "note", op: "filled", value: "" },
            { kind: "rule", field: "note", op: "empty", value: "" },
            { kind: "rule", field: "agree", op: "eq", value: "true" },
            { kind: "rule", field: "qty", op: "le", value: "3" },
            { kind: "rule", field: "kind", op: "ne", value: "person" },
          ],
        },
      ],
    };
    const logic = toLogic(g, FIELDS);
    assert.deepEqual(logic, {
      or: [
        { "==": [{ var: "kind" }, "company"] },
        {
          and: [
            { in: ["b", { var: "tags" }] },
            { "!!": [{ var: "note" }] },
            { "!": [{ var: "note" }] },
            { "==": [{ var: "agree" }, true] },
            { "<=": [{ var: "qty" }, 3] },
            { "!=": [{ var: "kind" }, "person"] },
          ],
        },
      ],
    });
    assert.deepEqual(fromLogic(logic), g);
    assert.equal(
      describeLogic(logic, FIELDS),
      "Customer is company or (Tags contains b and note is filled in and note is empty and " +
        "Agree is checked and Quantity is at most 3 and Customer is not person)",
    );
  });

  await t.step("what the editor cannot show is null (kept as JSON), described as JSON", () => {
    for (
      const logic of [
        { "*": [{ var: "qty" }, 2] },
        { and: [{ and: [{ or: [{ "!!": [{ var: "note" }] }] }] }] },
        { "==": [{ var: "qty" }, { var: "kind" }] },
        { and: [] },
      ]
    ) {
      assert.equal(fromLogic(logic), null, JSON.stringify(logic));
    }
    assert.equal(describeLogic({ "*": [1, 2] }, FIELDS), '{"*":[1,2]}');
  });

  await t.step("names read, and a rename followed everywhere", () => {
    const logic = {
      if: [{ "==": [{ var: "kind" }, "company"] }, { var: "qty" }, { var: ["note", ""] }],
    };
    assert.deepEqual([...namesIn(logic)].sort(), ["kind", "note", "qty"]);
    assert.deepEqual(renameVar(logic, "note", "remark"), {
      if: [{ "==": [{ var: "kind" }, "company"] }, { var: "qty" }, { var: ["remark", ""] }],
    });
    assert.deepEqual(renameVar(logic, "kind", "customer"), {
      if: [{ "==": [{ var: "customer" }, "company"] }, { var: "qty" }, { var: ["note", ""] }],
    });
    assert.deepEqual(renameVar({ var: "kind.x" }, "kind", "k"), { var: "k.x" });
    assert.deepEqual(renameVar({ var: "kinder" }, "kind", "k"), { var: "kinder" });
  });
});
