/**
 * Reading request bodies safely: size-bounded, strict UTF-8, bounded nesting, and the
 * stored-size estimate that keeps every value inside Deno KV's 64 KiB.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { errors } from "@/lib/errors.ts";

/** CONTRACT: request bodies up to 256 KiB. */
export const MAX_BODY_BYTES = 256 * 1024;
/** CONTRACT: stored `data` + `metadata` up to 60 KiB. */
export const MAX_STORED_BYTES = 60 * 1024;
/** Deeper JSON than this is refused (nothing legitimate nests so deep). */
export const MAX_DEPTH = 32;

/** The body deadline of a request no middleware armed (lib calls in tests). */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

/** An upload PUT gets one more second of body time per this many bytes signed. */
export const MIN_UPLOAD_BYTES_PER_SECOND = 64 * 1024;

/**
 * A request's body deadline, kept on the request itself under a private symbol: a WeakMap
 * entry per request cost about a tenth of a bare route's time (and GC work).
 */
const DEADLINE = Symbol("bodyDeadline");
type WithDeadline = Request & { [DEADLINE]?: { at: number; ms: number } };

/** Middleware: every request's body must have arrived `ms` after the request did (else 408). */
export function bodyDeadline(ms: number): MiddlewareHandler {
  return async (c, next) => {
    (c.req.raw as WithDeadline)[DEADLINE] = { at: Date.now() + ms, ms };
    await next();
  };
}

/** Milliseconds left before the request's body deadline (0 when past it). */
export function bodyTimeLeft(req: Request): number {
  const d = (req as WithDeadline)[DEADLINE];
  return d === undefined ? DEFAULT_BODY_TIMEOUT_MS : Math.max(0, d.at - Date.now());
}

/**
 * An upload's body as a stream with a deadline: the request's body time plus one second per
 * 64 KiB signed (a 10 MB file gets about 170 s), and no pause longer than the body time.
 */
export function uploadBody(
  req: Request,
  size: number,
): ReadableStream<Uint8Array> | null {
  if (!req.body) return null;
  const ms = (req as WithDeadline)[DEADLINE]?.ms ?? DEFAULT_BODY_TIMEOUT_MS;
  const at = Date.now() + bodyTimeLeft(req) + Math.ceil(size / MIN_UPLOAD_BYTES_PER_SECOND) * 1000;
  return timedStream(req.body, at, ms);
}

/**
 * `p`, or a 408 `request_timeout` when it has not settled within `ms` (up to 50 ms more).
 * A rejection of `p` after the 408 is swallowed (the caller cancels its stream).
 */
export function within<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cancel = atDeadline(ms, () => reject(errors.requestTimeout()));
    p.then((v) => (cancel(), resolve(v)), (err) => (cancel(), reject(err)));
  });
}

/** Deadlines are grouped by the tick they fall in: one timer a tick, not one a request. */
const TICK_MS = 50;
const ticks = new Map<number, { timer: number; due: Set<() => void> }>();

/**
 * Calls `fire` at the end of the tick `ms` from now unless the returned cancel runs
 * first. A tick's timer keeps the process alive only while something is due in it.
 */
function atDeadline(ms: number, fire: () => void): () => void {
  const at = Math.ceil((Date.now() + ms) / TICK_MS);
  let tick = ticks.get(at);
  if (tick === undefined) {
    const due = new Set<() => void>();
    // Deno's timer ids are numbers (the Node typings in scope say otherwise).
    const timer = setTimeout(() => {
      ticks.delete(at);
      for (const f of due) f();
    }, Math.max(0, at * TICK_MS - Date.now())) as unknown as number;
    ticks.set(at, tick = { timer, due });
  }
  const { timer, due } = tick;
  if (!due.size) Deno.refTimer(timer);
  due.add(fire);
  return () => {
    if (due.delete(fire) && !due.size) Deno.unrefTimer(timer);
  };
}

/**
 * A stream of `source`'s bytes that errors with 408 `request_timeout` (and cancels
 * `source`) when it has not ended by `deadlineAt` (epoch ms) or stalls for `idleMs`.
 */
export function timedStream(
  source: ReadableStream<Uint8Array>,
  deadlineAt: number,
  idleMs: number,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const left = Math.min(idleMs, Math.max(0, deadlineAt - Date.now()));
        const { done, value } = await within(reader.read(), left);
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        reader.cancel().catch(() => {});
        controller.error(err);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

/**
 * Reads at most `limit` bytes of a body; more is 413 (checked before and while reading).
 * A body not received by the request's deadline (see {@linkcode bodyDeadline}) is 408.
 */
export async function readBody(req: Request, limit = MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw errors.payloadTooLarge();
  if (declared !== null && /^\d+$/.test(declared)) {
    // A declared length within the limit bounds what the server reads (hyper stops there),
    // so the body can be taken whole. `req.body` is not touched first: once its stream
    // exists, `arrayBuffer()` reads through it, several times slower.
    let whole: Uint8Array;
    try {
      whole = new Uint8Array(await within(req.arrayBuffer(), bodyTimeLeft(req)));
    } catch (err) {
      if (err instanceof Error && err.name === "AppError") throw err;
      throw errors.badRequest("The request body could not be read.");
    }
    if (whole.byteLength > limit) throw errors.payloadTooLarge();
    return whole;
  }
  if (!req.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = req.body.getReader();
  try {
    for (;;) {
      const { done, value } = await within(reader.read(), bodyTimeLeft(req));
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        reader.cancel().catch(() => {});
        throw errors.payloadTooLarge();
      }
      chunks.push(value);
    }
  } catch (err) {
    reader.cancel().catch(() => {});
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
    if (typeof v === "string") v8 += v8StringSize(v);
    else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
      v8 += 5;
    } else if (v && typeof v === "object") {
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        v8 += v8StringSize(k);
        stack.push((v as Record<string, unknown>)[k]);
      }
      v8 += 5;
    } else v8 += 9;
  }
  return Math.max(utf8, v8);
}

/** What V8 serialises a string to at most: two bytes a unit past Latin-1, one below. */
function v8StringSize(s: string): number {
  // deno-lint-ignore no-control-regex
  return (/[^\x00-\xff]/.test(s) ? 2 : 1) * s.length + 5;
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
