import assert from "node:assert/strict";
import { createForm } from "@/lib/forms/forms.ts";
import { validateData } from "@/lib/forms/validator.ts";
import { codePoints } from "@/lib/rules/mod.ts";
import { makeWorkspace, testEnv } from "@/tests/helpers.ts";

Deno.test("validator - every type and rule", async (t) => {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps);
  const form = await createForm(env.deps, ws.id, {
    name: "All types",
    honeypot: "_hp",
    fields: [
      { name: "text", type: "text", minLength: 2, maxLength: 5, pattern: "[a-z]+" },
      { name: "area", type: "textarea", required: true },
      { name: "email", type: "email" },
      { name: "url", type: "url" },
      { name: "tel", type: "tel" },
      { name: "num", type: "number", min: 1, max: 10 },
      { name: "int", type: "integer" },
      { name: "agree", type: "boolean", required: true },
      { name: "sel", type: "select", options: ["a", "b"] },
      { name: "multi", type: "multiselect", options: ["x", "y", "z"], max: 2 },
      { name: "radio", type: "radio", options: ["r1", "r2"] },
      { name: "date", type: "date", min: "2020-01-01" },
      { name: "dt", type: "datetime" },
      { name: "hid", type: "hidden" },
      { name: "cv", type: "file", allowedTypes: ["application/pdf"], maxSizeMB: 1 },
    ],
  });
  const types = (data: Record<string, unknown>, source: "json" | "form" = "json") =>
    Object.fromEntries(validateData(form, data, source).errors.map((e) => [e.field, e.type]));
  const base = { area: "hello", agree: true };

  await t.step("a valid submission passes and normalises", () => {
    const r = validateData(form, {
      ...base,
      text: "abc",
      email: "a@b.co",
      url: "https://x.org/a",
      tel: "+1 (555) 010-2000",
      num: 2.5,
      int: 3,
      sel: "a",
      multi: ["x", "z"],
      radio: "r2",
      date: "2024-02-29",
      dt: "2024-02-29T10:00:00Z",
      hid: "h",
      cv: { path: "p/1", originalFilename: "a.pdf" },
      _hp: "",
    });
    assert.deepEqual(r.errors, []);
    assert.equal(r.values.num, 2.5);
    assert.ok(!("_hp" in r.values));
  });

  await t.step("each rule names its type, field and fieldId", () => {
    const r = validateData(form, { area: "" });
    assert.deepEqual(r.errors.map((e) => [e.field, e.fieldId, e.type]), [
      ["area", "fld_area", "required"],
      ["agree", "fld_agree", "required"],
    ]);
    assert.equal(types({ ...base, text: "a" }).text, "minLength");
    assert.equal(types({ ...base, text: "abcdef" }).text, "maxLength");
    assert.equal(types({ ...base, text: "ABC" }).text, "pattern");
    assert.equal(types({ ...base, text: "abc1" }).text, "pattern", "pattern is anchored");
    assert.equal(types({ ...base, email: "nope" }).email, "email");
    assert.equal(types({ ...base, url: "javascript:alert(1)" }).url, "url");
    assert.equal(types({ ...base, tel: "call me" }).tel, "tel");
    assert.equal(types({ ...base, num: 11 }).num, "max");
    assert.equal(types({ ...base, num: 0 }).num, "min");
    assert.equal(types({ ...base, num: "5" }).num, "type");
    assert.equal(types({ ...base, int: 1.5 }).int, "type");
    assert.equal(types({ ...base, agree: false }).agree, "required");
    assert.equal(types({ ...base, sel: "c" }).sel, "options");
    assert.equal(types({ ...base, multi: ["x", "y", "z"] }).multi, "max");
    assert.equal(types({ ...base, multi: ["w"] }).multi, "options");
    assert.equal(types({ ...base, date: "2023-02-29" }).date, "date");
    assert.equal(types({ ...base, date: "2019-12-31" }).date, "min");
    assert.equal(types({ ...base, dt: "yesterday" }).dt, "datetime");
    assert.equal(types({ ...base, cv: "file.pdf" }).cv, "file");
    assert.equal(types({ ...base, text: 5 }).text, "type");
    assert.equal(types({ ...base, surprise: 1 }).surprise, "unknown_field");
  });

  await t.step("form posts are coerced from strings", () => {
    const r = validateData(
      form,
      { area: "x", agree: "on", num: "3", int: "4", multi: "y" },
      "form",
    );
    assert.deepEqual(r.errors, []);
    assert.deepEqual([r.values.num, r.values.int, r.values.agree, r.values.multi], [3, 4, true, [
      "y",
    ]]);
    assert.equal(types({ ...base, num: "three" }, "form").num, "type");
  });
  env.close();
});

Deno.test("validator - patterns run in linear time and RE2-only syntax is refused", async () => {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps);
  // A classic catastrophic-backtracking pattern: a backtracking engine needs minutes here.
  const form = await createForm(env.deps, ws.id, {
    name: "Slow",
    fields: [{ name: "words", type: "text", pattern: "([A-Za-z]+\\s?)+", maxLength: 5000 }],
  });
  const hostile = "a".repeat(4000) + "!";
  const started = performance.now();
  const r = validateData(form, { words: hostile });
  const ms = performance.now() - started;
  assert.deepEqual(r.errors.map((e) => e.type), ["pattern"]);
  assert.ok(ms < 2000, `pattern check took ${ms} ms`);
  assert.deepEqual(validateData(form, { words: "two words" }).errors, []);
  await assert.rejects(
    () =>
      createForm(env.deps, ws.id, {
        name: "B",
        fields: [{ name: "a", type: "text", pattern: "(a)\\1" }],
      }),
    /RE2 syntax/,
  );
  env.close();
});

Deno.test("validator - codePoints counts as [...s].length does, lone surrogates included", () => {
  const units = ["a", "é", "😀", "\ud83d", "\ude00", "中", " ", "\u0301"];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % units.length;
  for (let n = 0; n < 500; n++) {
    let s = "";
    for (let i = 0; i < n % 40; i++) s += units[next()];
    assert.equal(codePoints(s), [...s].length, JSON.stringify(s));
  }
});
