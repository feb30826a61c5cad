/**
 * Reading request bodies safely: size-bounded, strict UTF-8, bounded nesting, and the
 * stored-size estimate that keeps every value inside Deno KV's 64 KiB.
 * @module
 */
import { errors } from "@/lib/errors.ts";

/** CONTRACT: request bodies up to 256 KiB. */
export const MAX_BODY_BYTES = 256 * 1024;
/** CONTRACT: stored `data` + `metadata` up to 60 KiB. */
export const MAX_STORED_BYTES = 60 * 1024;
/** Deeper JSON than this is refused (nothing legitimate nests so deep). */
export const MAX_DEPTH = 32;

/** Reads at most `limit` bytes of a body; more is 413 (checked before and while reading). */
export async function readBody(req: Request, limit = MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw errors.payloadTooLarge();
  if (!req.body) return new Uint8Array();
  if (declared !== null && /^\d+$/.test(declared)) {
    // A declared length within the limit bounds what the server reads (hyper stops there),
    // so the body can be taken whole, skipping the per-chunk stream machinery.
    let whole: Uint8Array;
    try {
      whole = new Uint8Array(await req.arrayBuffer());
    } catch {
      throw errors.badRequest("The request body could not be read.");
    }
    if (whole.byteLength > limit) throw errors.payloadTooLarge();
    return whole;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = req.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        reader.cancel().catch(() => {});
        throw errors.payloadTooLarge();
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof Error && err.name === "AppError") throw err;
    throw errors.badRequest("The request body could not be read.");
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

/** Decodes strict UTF-8; invalid bytes are a 400. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw errors.badRequest("The request body is not valid UTF-8.");
  }
}

/** Parses a JSON body into an object; anything else is a 400 with a clear message. */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> {
  const text = decodeUtf8(bytes);
  if (!text.trim()) throw errors.badRequest("The request body is empty; send a JSON object.");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw errors.badRequest("The request body is not valid JSON.");
  }
  if (!isPlainObject(value)) throw errors.badRequest("The request body must be a JSON object.");
  const flaw = treeFlaw(value, MAX_DEPTH);
  if (flaw === "deep") {
    throw errors.badRequest(`The request body nests deeper than ${MAX_DEPTH} levels.`);
  }
  if (flaw === "unicode") {
    throw errors.badRequest(
      "The request body holds a string with invalid Unicode (a lone surrogate).",
    );
  }
  return value;
}

/**
 * The first flaw of a parsed JSON value, in one iterative walk (recursion on hostile input
 * would overflow the stack): nesting deeper than `maxDepth`, or a key or string that is not
 * well-formed Unicode (a lone surrogate); null when it has neither.
 */
export function treeFlaw(value: unknown, maxDepth: number): "deep" | "unicode" | null {
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length) {
    const v = stack.pop();
    const depth = depths.pop()!;
    if (typeof v === "string") {
      if (!v.isWellFormed()) return "unicode";
    } else if (v !== null && typeof v === "object") {
      if (depth > maxDepth) return "deep";
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) stack.push(v[i]), depths.push(depth + 1);
      } else {
        for (const k in v) {
          if (!k.isWellFormed()) return "unicode";
          stack.push((v as Record<string, unknown>)[k]), depths.push(depth + 1);
        }
      }
    }
  }
  return null;
}

/** Whether a value is a JSON object (not null, not an array). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Upper bound of the bytes a value takes stored: the larger of its UTF-8 JSON size and
 * V8's serialisation (strings holding any non-Latin-1 character take 2 bytes a unit).
 */
export function storedSize(value: unknown): number {
  const utf8 = utf8Length(JSON.stringify(value) ?? "");
  let v8 = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    // deno-lint-ignore no-control-regex
    if (typeof v === "string") v8 += (/[^\x00-\xff]/.test(v) ? 2 : 1) * v.length + 5;
    else if (Array.isArray(v)) stack.push(...v), v8 += 5;
    else if (v && typeof v === "object") {
      for (const [k, child] of Object.entries(v)) {
        stack.push(k, child);
      }
      v8 += 5;
    } else v8 += 9;
  }
  return Math.max(utf8, v8);
}

/** The UTF-8 length of a string, counted without encoding it (a lone surrogate: 3 bytes). */
export function utf8Length(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      // A surrogate pair: two UTF-16 units, four UTF-8 bytes.
      if (next >= 0xdc00 && next <= 0xdfff) n += 2, i++;
      else n += 2;
    } else n += 2;
  }
  return n;
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaType(header: string | null | undefined): string {
  return (header ?? "").split(";")[0].trim().toLowerCase();
}
