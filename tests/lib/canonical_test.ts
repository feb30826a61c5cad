import assert from "node:assert/strict";
import { canonicalJson } from "@/lib/canonical.ts";

/** Canonical JSON written out by hand, key by key: what canonicalJson must equal. */
function reference(value: unknown, inArray = false): string | undefined {
  if (value !== null && typeof value === "object" && "toJSON" in value) {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value) as string | undefined;
    return text === undefined && inArray ? "null" : text;
  }
  if (Array.isArray(value)) return `[${value.map((v) => reference(v, true)).join(",")}]`;
  const parts: string[] = [];
  for (const k of Object.keys(value).sort()) {
    const v = reference((value as Record<string, unknown>)[k]);
    if (v !== undefined) parts.push(`${JSON.stringify(k)}:${v}`);
  }
  return `{${parts.join(",")}}`;
}

Deno.test("canonicalJson sorts keys at every depth whatever their order", () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [3, { f: 1, e: 2 }], c: "x" } }),
    '{"a":{"c":"x","d":[3,{"e":2,"f":1}]},"b":1}',
  );
  assert.equal(canonicalJson({ b: 2, a: 1 }), canonicalJson({ a: 1, b: 2 }));
});

Deno.test("canonicalJson writes what a key-by-key serialisation writes, for every kind of value", () => {
  const values: unknown[] = [
    null,
    undefined,
    0,
    -1.5,
    'é✓ 日本 🙂 \u2028 \\ "',
    true,
    [],
    {},
    [undefined, () => 1, Symbol("s"), NaN, Infinity],
    { u: undefined, f: () => 1, s: Symbol("s"), n: null, nan: NaN },
    { at: new Date(Date.UTC(2024, 0, 2)), nested: { toJSON: () => ({ z: 1, y: [2] }) } },
    // Integer-like keys sort as strings ("10" before "2"), not as an object lists them.
    { "2": "b", "10": "a", x: 1, "1a": 2 },
    { list: [{ "3": 1, "20": 2 }] },
    JSON.parse('{"__proto__": {"polluted": true}, "a": 1}'),
    { Z: 1, a: 2, _: 3, "": 4, "\u00e9": 5, "e\u0301": 6 },
    { data: { name: "Ada", tags: ["b", "a"], n: 1 }, metadata: {} },
  ];
  for (const v of values) {
    assert.equal(canonicalJson(v), reference(v) ?? "null", String(reference(v)));
  }
});
