/**
 * A streaming `multipart/form-data` reader for the no-JS submit path. Unlike
 * `Request.formData()` it never holds more than each part's cap: a file larger than its
 * field allows keeps only its size (so the post can answer a 422 on that field with the
 * typed text kept), while the whole body, the text parts and the number of parts have
 * hard caps (413) against abuse.
 * @module
 */
import { bodyTimeLeft, decodeUtf8, within } from "./body.ts";
import { errors } from "@/lib/errors.ts";

/** A file part: its bytes only while within the cap, its size always. */
export interface MultipartFile {
  /** The `filename` parameter as posted (may be empty). */
  name: string;
  /** The part's declared Content-Type ("" when absent). */
  type: string;
  /** Bytes the part carried, counted past the cap. */
  size: number;
  /** The content, or null when `size` exceeded the cap (the bytes were dropped). */
  bytes: Uint8Array | null;
}

/** One posted name and its value, in body order. */
export type MultipartEntry = [string, string | MultipartFile];

/** The caps a multipart read enforces. */
export interface MultipartLimits {
  /** The whole body; more is 413 (the stream is cancelled). */
  maxBodyBytes: number;
  /** Text values and part headers together; more is 413. */
  maxTextBytes: number;
  /** How many bytes of a file part posted under `name` are kept. */
  fileCap: (name: string) => number;
  /** Parts in one body; more is 413. */
  maxParts: number;
}

const CRLF = new Uint8Array([13, 10]);
const HEADER_END = new Uint8Array([13, 10, 13, 10]);
const MAX_HEADER_BYTES = 16 * 1024;
const unparsable = () => errors.badRequest("The multipart/form-data body could not be parsed.");

/** The boundary of a `multipart/form-data` Content-Type; a missing or bad one is a 400. */
export function boundaryOf(contentType: string | null): string {
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^";\s]{1,70}))/i.exec(contentType ?? "");
  if (!m) throw errors.badRequest("The multipart/form-data Content-Type has no valid boundary.");
  return m[1] ?? m[2];
}

function indexOf(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  const last = hay.length - needle.length;
  for (
    let i = hay.indexOf(needle[0], from);
    i !== -1 && i <= last;
    i = hay.indexOf(needle[0], i + 1)
  ) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** Browsers percent-encode `"`, CR and LF in names (HTML's multipart encoding). */
function unescapeName(s: string): string {
  return s.replace(/%(22|0D|0A)/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

interface Part {
  name: string;
  file: { name: string; type: string; cap: number } | null;
  chunks: Uint8Array[];
  size: number;
}

function parseHeaders(bytes: Uint8Array): { name: string; filename?: string; type: string } {
  // Filenames are sent as raw UTF-8; a stray byte becomes U+FFFD rather than a refusal.
  const text = new TextDecoder().decode(bytes);
  let disposition = "";
  let type = "";
  for (const line of text.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon < 1) throw unparsable();
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === "content-disposition") disposition = value;
    else if (key === "content-type") type = value;
  }
  if (!/^form-data\s*(;|$)/i.test(disposition)) throw unparsable();
  const params = new Map<string, string>();
  const re = /;\s*([A-Za-z0-9_*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/g;
  for (const m of disposition.matchAll(re)) {
    const key = m[1].toLowerCase();
    const raw = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3];
    if (!params.has(key)) params.set(key, unescapeName(raw));
  }
  const name = params.get("name");
  if (name === undefined) throw unparsable();
  return { name, filename: params.get("filename"), type };
}

/**
 * Reads a multipart body into entries. Text parts are strict UTF-8 (else 400); a file
 * part keeps its bytes only up to `fileCap(name)`.
 */
export async function readMultipart(
  req: Request,
  limits: MultipartLimits,
): Promise<MultipartEntry[]> {
  const delimiter = new TextEncoder().encode(
    `\r\n--${boundaryOf(req.headers.get("content-type"))}`,
  );
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > limits.maxBodyBytes) throw errors.payloadTooLarge();
  const entries: MultipartEntry[] = [];
  // Widened: step() changes it, which narrowing in this function cannot see.
  let state = "preamble" as "preamble" | "delimited" | "headers" | "body" | "done";
  // A leading CRLF lets the first boundary (which has none before it) match the delimiter.
  let buf: Uint8Array = CRLF;
  let part: Part | null = null;
  let textBytes = 0;
  let parts = 0;

  const text = (n: number) => {
    textBytes += n;
    if (textBytes > limits.maxTextBytes) throw errors.payloadTooLarge();
  };
  const feed = (bytes: Uint8Array) => {
    if (!part || bytes.byteLength === 0) return;
    part.size += bytes.byteLength;
    if (!part.file) text(bytes.byteLength);
    else if (part.size > part.file.cap) return void (part.chunks = []);
    // A view is safe to keep: each read builds a new buffer and none is written again.
    part.chunks.push(bytes);
  };
  const finish = () => {
    if (!part) return;
    const bytes = concat(part.chunks, part.chunks.reduce((n, c) => n + c.byteLength, 0));
    if (!part.file) entries.push([part.name, decodeUtf8(bytes)]);
    else {
      const { name, type, cap } = part.file;
      entries.push([part.name, {
        name,
        type,
        size: part.size,
        bytes: part.size > cap ? null : bytes,
      }]);
    }
    part = null;
  };
  /** Advances over `buf` as far as it can; returns when more bytes are needed. */
  const step = () => {
    for (;;) {
      if (state === "preamble" || state === "body") {
        const at = indexOf(buf, delimiter);
        if (at === -1) {
          // Keep a tail that may be the start of a delimiter split across chunks.
          const keep = Math.min(buf.length, delimiter.length - 1);
          if (state === "body") feed(buf.subarray(0, buf.length - keep));
          buf = buf.subarray(buf.length - keep);
          return;
        }
        if (state === "body") feed(buf.subarray(0, at));
        finish();
        buf = buf.subarray(at + delimiter.length);
        state = "delimited";
      } else if (state === "delimited") {
        if (buf.length < 2) return;
        if (buf[0] === 45 && buf[1] === 45) return void (state = "done"); // "--": the end
        const eol = indexOf(buf, CRLF);
        if (eol === -1) {
          if (buf.length > 256) throw unparsable();
          return;
        }
        // Transport padding (spaces, tabs) may sit between the boundary and its CRLF.
        if (buf.subarray(0, eol).some((b) => b !== 32 && b !== 9)) throw unparsable();
        buf = buf.subarray(eol + 2);
        state = "headers";
      } else if (state === "headers") {
        const empty = buf.length >= 2 && buf[0] === 13 && buf[1] === 10;
        const end = empty ? 0 : indexOf(buf, HEADER_END);
        if (end === -1) {
          if (buf.length > MAX_HEADER_BYTES) throw errors.payloadTooLarge();
          return;
        }
        if (++parts > limits.maxParts) {
          throw errors.payloadTooLarge("The form post has too many parts.");
        }
        text(end);
        if (empty) throw unparsable(); // no Content-Disposition: no name
        const h = parseHeaders(buf.subarray(0, end));
        part = {
          name: h.name,
          file: h.filename === undefined
            ? null
            : { name: h.filename, type: h.type, cap: Math.max(0, limits.fileCap(h.name)) },
          chunks: [],
          size: 0,
        };
        buf = buf.subarray(end + 4);
        state = "body";
      } else return; // done: the epilogue is ignored
    }
  };

  if (!req.body) throw unparsable();
  const reader = req.body.getReader();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await within(reader.read(), bodyTimeLeft(req));
      if (done) break;
      total += value.byteLength;
      if (total > limits.maxBodyBytes) throw errors.payloadTooLarge();
      if (state === "done") continue;
      const merged = new Uint8Array(buf.length + value.byteLength);
      merged.set(buf);
      merged.set(value, buf.length);
      buf = merged;
      step();
    }
  } catch (err) {
    reader.cancel().catch(() => {});
    if (err instanceof Error && err.name === "AppError") throw err;
    throw errors.badRequest("The request body could not be read.");
  }
  if (state !== "done") throw unparsable();
  return entries;
}
