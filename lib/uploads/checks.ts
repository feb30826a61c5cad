/**
 * Pure rules of the upload flow: which MIME types a field allows, what the stored bytes
 * really are (magic bytes via `file-type`, a strict text rule for types without a
 * signature), and file-name sanitising. No I/O here, so every rule is unit-testable.
 * @module
 */
import { fileTypeFromBuffer } from "file-type";
import { ALIASES, typeAllowed } from "@/lib/rules/files.ts";

/** Types without a magic signature, accepted only as strict UTF-8 text (see inspectBytes). */
const TEXT_TYPES = new Set([
  "text/plain",
  "text/csv",
  "text/tab-separated-values",
  "text/markdown",
  "text/calendar",
  "text/vcard",
  "application/json",
]);

/**
 * Containers `file-type` reports by their generic type, and the specific types a
 * declaration may name for them: a Chrome audio recording is WebM (`video/webm`), Safari's
 * an `isom` MP4, a pre-2007 .doc/.xls/.ppt a bare CFB, an Office/OpenDocument file whose
 * markers lie past the inspected head a plain ZIP. When the bytes are such a container and
 * the declared type is one of its members (and allowed), the declared type is stored.
 */
const CONTAINERS: Record<string, string[]> = {
  "video/webm": ["audio/webm"],
  "video/matroska": ["audio/x-matroska"],
  "video/mp4": ["audio/mp4", "audio/x-m4a"],
  "audio/x-m4a": ["audio/mp4"],
  "video/3gpp": ["audio/3gpp"],
  "video/3gpp2": ["audio/3gpp2"],
  "application/ogg": ["audio/ogg", "video/ogg"],
  "application/x-cfb": [
    "application/msword",
    "application/vnd.ms-excel",
    "application/vnd.ms-powerpoint",
  ],
  "application/zip": [
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "application/vnd.oasis.opendocument.text",
    "application/vnd.oasis.opendocument.spreadsheet",
    "application/vnd.oasis.opendocument.presentation",
    "application/epub+zip",
  ],
};

/** Whether bytes detected as `detected` may be stored as the declared `declared`. */
export function containerMember(detected: string, declared: string): boolean {
  return CONTAINERS[detected]?.includes(declared) ?? false;
}

/**
 * Markers of active content, never inside an accepted file: HTML that runs or steers a
 * browser (script, frames, plug-ins, SVG, `<base>`, `<link>`, `<style>`, `<form>`, a link
 * with `href`, any tag with an event-handler attribute such as `<img onerror=...>`), and
 * server pages. Each needs more than a few chance bytes, so binary files do not trip it.
 */
const ACTIVE_CONTENT = new RegExp(
  [
    "<\\s*(script|html|!doctype\\s+html|body|iframe|frame|frameset|object|embed|applet|svg|math|meta|base|link|style|form|xml-stylesheet)\\b",
    "<\\s*a\\s[^<>]{0,200}?\\b(href|xlink:href)\\s*=",
    "<\\s*[a-z][a-z0-9-]*[\\s/][^<>]{0,200}?\\bon[a-z]{3,}\\s*=",
    "<\\?php|<\\?=|javascript:",
  ].join("|"),
  "i",
);

/**
 * Text files (no signature) are held to more: any tag that shows or fetches something, or
 * takes input, even without attributes (`<a>`, `<img>`, `<input>`...), since text that a
 * browser might render as HTML has no business holding them.
 */
const TEXT_ACTIVE_CONTENT = new RegExp(
  `${ACTIVE_CONTENT.source}|<\\s*(a|img|image|input|button|select|textarea|video|audio|source|track|picture|area|map|details|dialog|marquee|template|portal)[\\s/>]`,
  "i",
);

/** Why a file holding active content is refused. */
export const MARKUP_REASON = "The file contains script or markup, which is not accepted.";

/** Characters of scanned text kept between chunks (longer than any marker, once collapsed). */
const SCAN_OVERLAP = 512;

/**
 * Whether a stream holds active content (see ACTIVE_CONTENT) anywhere, read chunk by chunk:
 * each chunk is scanned with the last characters of the one before, runs of whitespace
 * collapsed to one space (the markers' `\s*` means the same then), so a marker split
 * across chunks, or padded with any amount of whitespace, is still found. Memory stays
 * one chunk whatever the file's size; the stream is cancelled at the first hit.
 */
export async function streamHasActiveContent(
  stream: ReadableStream<Uint8Array>,
  text = false,
): Promise<boolean> {
  const markers = new RegExp((text ? TEXT_ACTIVE_CONTENT : ACTIVE_CONTENT).source, "gi");
  const latin1 = new TextDecoder("latin1");
  let carry = "";
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return markerIn(markers, carry, true);
      const seen = (carry + latin1.decode(value, { stream: true })).replace(/\s+/g, " ");
      if (markerIn(markers, seen, false)) {
        reader.cancel().catch(() => {});
        return true;
      }
      carry = seen.slice(-SCAN_OVERLAP);
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * Whether `text` holds a marker; unless `final`, one ending at the text's end is left for
 * the next chunk (its `\b` may not hold once more bytes follow).
 */
function markerIn(markers: RegExp, text: string, final: boolean): boolean {
  for (const m of text.matchAll(markers)) {
    if (final || m.index + m[0].length < text.length) return true;
  }
  return false;
}

/** Whether a verified type is one of the text types (no signature; held to the text rule). */
export function isTextType(type: string): boolean {
  return TEXT_TYPES.has(type);
}

/** The verdict on stored bytes. */
export type Inspection =
  | { ok: true; mimeType: string }
  /** `infected`: the virus scanner found a signature (items of type `file_infected`). */
  | { ok: false; reason: string; infected?: boolean };

/**
 * Decides what the bytes really are and whether the field allows that: a detected
 * signature wins over the declaration (and must match its top-level type), except that a
 * generic container (see CONTAINERS) keeps a declared member type; without a
 * signature only the text types pass, and only as valid UTF-8 without NULs or markup.
 * `head` is the file's start; `complete` says whether it is the whole file.
 */
export async function inspectBytes(
  head: Uint8Array,
  complete: boolean,
  declared: string,
  allowed: string[],
): Promise<Inspection> {
  if (head.byteLength === 0) return { ok: false, reason: "The file is empty." };
  // Whitespace runs collapsed, as the streaming scan sees them.
  const seen = new TextDecoder("latin1").decode(head).replace(/\s+/g, " ");
  if (ACTIVE_CONTENT.test(seen)) return { ok: false, reason: MARKUP_REASON };
  const detected = await fileTypeFromBuffer(head).catch(() => undefined);
  if (!detected && TEXT_ACTIVE_CONTENT.test(seen)) return { ok: false, reason: MARKUP_REASON };
  if (detected) {
    const real = ALIASES[detected.mime] ?? detected.mime;
    if (containerMember(real, declared) && typeAllowed(declared, allowed)) {
      return { ok: true, mimeType: declared };
    }
    const family = (t: string) => t.split("/")[0];
    if (
      real !== declared && declared !== "application/octet-stream" &&
      family(real) !== family(declared)
    ) {
      return { ok: false, reason: `The file is ${real}, not ${declared} as declared.` };
    }
    if (!typeAllowed(real, allowed)) {
      return { ok: false, reason: `Files of type ${real} are not accepted here.` };
    }
    return { ok: true, mimeType: real };
  }
  if (!TEXT_TYPES.has(declared)) {
    return { ok: false, reason: `The file's content does not match its type ${declared}.` };
  }
  if (!isCleanText(head, complete)) {
    return { ok: false, reason: "The file is not plain UTF-8 text." };
  }
  if (declared === "application/json" && complete && !isJson(head)) {
    return { ok: false, reason: "The file is not valid JSON." };
  }
  return typeAllowed(declared, allowed)
    ? { ok: true, mimeType: declared }
    : { ok: false, reason: `Files of type ${declared} are not accepted here.` };
}

function isCleanText(bytes: Uint8Array, complete: boolean): boolean {
  if (bytes.includes(0)) return false;
  try {
    // A cut head may end inside a multi-byte character; `stream` tolerates exactly that.
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: !complete });
    // deno-lint-ignore no-control-regex
    return !/[\x01-\x08\x0e-\x1f\x7f]/.test(text);
  } catch {
    return false;
  }
}

function isJson(bytes: Uint8Array): boolean {
  try {
    JSON.parse(new TextDecoder().decode(bytes));
    return true;
  } catch {
    return false;
  }
}

/**
 * A file name safe to keep as metadata and to offer on download: NFC, no control
 * characters or NULs, no path (separators and leading dots replaced), at most 200
 * characters keeping the extension; "file" when nothing is left.
 */
export function sanitiseFileName(raw: string): string {
  let name = raw.normalize("NFC")
    // deno-lint-ignore no-control-regex
    .replace(/[\x00-\x1f\x7f\u202a-\u202e\u2066-\u2069]/g, "")
    .replace(/[/\\:*?"<>|]/g, "_")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^[.\s_]+/, "");
  if ([...name].length > 200) {
    const chars = [...name];
    const dot = name.lastIndexOf(".");
    const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : "";
    name = chars.slice(0, 200 - [...ext].length).join("") + ext;
  }
  return name || "file";
}
