/**
 * Shared pieces of the bad-input generators: targets, the case shape, a seeded PRNG,
 * junk values, and raw bodies that are not a JSON object at all or exceed the limits.
 * @module
 */

/** What the generators aim at (created by bad_input.ts). */
export interface BadTargets {
  formId: string;
  captchaFormId: string;
  closedFormId: string;
  otherFormId: string;
  fileFieldId: string;
  keys: { submit: string; admin: string; read: string; revoked: string; other: string };
  origin: string;
}

/** One request to send. */
export interface BadCase {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** A small seeded PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random source in [0, 1). */
export type R = () => number;
/** A random element. */
export const pick = <T>(r: R, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
/** A random integer in [lo, hi]. */
export const int = (r: R, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

/** A hostile string. */
export function junkString(r: R): string {
  return pick(r, [
    "",
    " ",
    "\u0000",
    "\ud800",
    "🦀".repeat(int(r, 1, 50)),
    "a".repeat(int(r, 1, 70_000)),
    "<script>alert(1)</script>",
    "../../etc/passwd",
    "%00%zz",
    "null",
    "\u202e\u200b",
    String(r()),
  ]);
}

/** A hostile JSON value. */
export function junkValue(r: R, depth = 0): unknown {
  switch (int(r, 0, 8)) {
    case 0:
      return junkString(r);
    case 1:
      return pick(r, [0, -1, 1e308, -0, 3.5, Number.MAX_SAFE_INTEGER + 2]);
    case 2:
      return null;
    case 3:
      return pick(r, [true, false]);
    case 4:
      return depth > 2 ? [] : Array.from({ length: int(r, 0, 3) }, () => junkValue(r, depth + 1));
    case 5:
      return depth > 2 ? {} : { [junkString(r).slice(0, 20)]: junkValue(r, depth + 1) };
    default:
      return junkString(r).slice(0, 40);
  }
}

/** Valid data for the bad-input form (never sent without a defect). */
export function validData(): Record<string, unknown> {
  return { name: "Ada Lovelace", email: "ada@example.com", age: 36, plan: "pro" };
}

/** Raw bodies that are not a JSON object at all, or exceed the limits. */
export function rawBadBody(r: R): string | Uint8Array {
  const valid = JSON.stringify({ data: validData() });
  switch (int(r, 0, 11)) {
    case 0:
      return pick(r, ["", " ", "\n", "null", "[]", "0", '"str"', "true", "{", "}", "{}}"]);
    case 1:
      return valid.slice(0, int(r, 1, valid.length - 1));
    case 2:
      return new Uint8Array([0xff, 0xfe, 0x7b, 0x22, 0xc3, 0x28, 0x7d]);
    case 3:
      return valid.replace("Ada", "\u0000Ada").replace('"', "'");
    case 4: {
      const depth = int(r, 33, 3000);
      return `{"data":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    }
    case 5:
      return `{"data":{"name":"${"x".repeat(256 * 1024)}"}}`;
    case 6:
      return new Uint8Array(int(r, 1, 4096)).map(() => int(r, 0, 255));
    case 7:
      return "\ufeff" + valid.replace('"email"', '"e\\mail"');
    case 8:
      return valid.replace("{", "{,");
    case 9:
      return `{"data":{"name":NaN,"email":Infinity}}`;
    case 10:
      return `{"data":{"name":"\\ud800\\udc00\\u0000","email":"x"}}`;
    default:
      return `{"data":${"1".repeat(int(r, 400, 5000))}}`;
  }
}
