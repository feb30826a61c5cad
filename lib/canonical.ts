/**
 * Canonical JSON: object keys sorted at every depth, so equal payloads compare equal
 * whatever their key order.
 * @module
 */

/**
 * Serialises a JSON value with sorted object keys: the text `JSON.stringify` would give
 * for a copy with sorted keys (`undefined`, functions and symbols in objects dropped, in
 * arrays `null`; `toJSON` honoured), written directly without building that copy.
 */
export function canonicalJson(value: unknown): string {
  return write(value, false) ?? "null";
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
