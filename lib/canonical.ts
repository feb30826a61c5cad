/**
 * Canonical JSON: object keys sorted at every depth, so equal payloads compare equal
 * whatever their key order.
 * @module
 */

/**
 * Serialises a JSON value with sorted object keys (by UTF-16 code units): `JSON.stringify`'s
 * text with every object's keys in that order (`undefined`, functions and symbols in objects
 * dropped, in arrays `null`; `toJSON` honoured).
 */
export function canonicalJson(value: unknown): string {
  const copy = sortedCopy(value);
  return (copy === UNORDERED ? write(value, false) : JSON.stringify(copy)) ?? "null";
}

/** What sortedCopy returns for a value a copy cannot keep in order (see there). */
const UNORDERED = Symbol("unordered");

/**
 * A copy of `value` whose objects hold their keys in sorted order, for `JSON.stringify` to
 * write at native speed; UNORDERED when an object has a key starting with a digit (an object
 * lists integer keys first, whatever the order they were added in) or `__proto__` (a copy
 * would set its prototype instead): `write` serialises those directly.
 */
function sortedCopy(value: unknown): unknown {
  if (
    value !== null && typeof value === "object" &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const v = sortedCopy(value[i]);
      if (v === UNORDERED) return UNORDERED;
      out[i] = v;
    }
    return out;
  }
  const obj = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(obj).sort()) {
    const c = k.charCodeAt(0);
    if ((c >= 48 && c <= 57) || k === "__proto__") return UNORDERED;
    const v = sortedCopy(obj[k]);
    if (v === UNORDERED) return UNORDERED;
    out[k] = v;
  }
  return out;
}

function write(value: unknown, inArray: boolean): string | undefined {
  if (
    value !== null && typeof value === "object" &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value) as string | undefined;
    return text === undefined && inArray ? "null" : text;
  }
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i) out += ",";
      out += write(value[i], true);
    }
    return out + "]";
  }
  const obj = value as Record<string, unknown>;
  let out = "{";
  let first = true;
  for (const k of Object.keys(obj).sort()) {
    const v = write(obj[k], false);
    if (v === undefined) continue;
    out += (first ? "" : ",") + JSON.stringify(k) + ":" + v;
    first = false;
  }
  return out + "}";
}
