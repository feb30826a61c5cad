/**
 * File fields' rules, shared by the upload URL (before bytes are sent), the client library
 * (before it uploads) and the hosted page: which MIME types a field allows (its own list,
 * else its type's default; script-bearing types never, executables only by exact entry)
 * and how large a file may be.
 * @module
 */
import { labelOf, type Verdict } from "./checks.ts";
import { english, type MessageFormatter } from "./evaluate.ts";
import type { FileFacts, Issue, RuleField } from "./types.ts";

/** 1 MB in `maxSizeMB` and plan limits is a mebibyte. */
export const MB = 1024 * 1024;

/** Types never accepted, whatever a field lists: browsers run script in them. */
const BLOCKED = new Set([
  "image/svg+xml",
  "text/html",
  "application/xhtml+xml",
  "text/xml",
  "application/xml",
  "text/javascript",
  "application/javascript",
  "application/ecmascript",
  "application/x-httpd-php",
  "application/x-php",
  "text/x-php",
  "application/x-sh",
  "application/hta",
]);

/** Executables: accepted only where a field lists the exact type, never via a wildcard. */
const EXECUTABLE = new Set([
  "application/x-msdownload",
  "application/x-elf",
  "application/x-mach-binary",
  "application/vnd.microsoft.portable-executable",
  "application/x-executable",
  "application/java-archive",
]);

/** Common non-canonical spellings browsers and clients send. */
export const ALIASES: Record<string, string> = {
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "image/x-png": "image/png",
  "audio/mp3": "audio/mpeg",
  "audio/x-mp3": "audio/mpeg",
  "audio/m4a": "audio/x-m4a",
  "audio/x-wav": "audio/wav",
  "audio/wave": "audio/wav",
  "audio/vnd.wave": "audio/wav",
  "application/x-pdf": "application/pdf",
  "text/x-markdown": "text/markdown",
  "text/comma-separated-values": "text/csv",
};

/** Allowed types of a file-like field without `allowedTypes`. */
const DEFAULT_ALLOWED: Record<string, string[]> = {
  file: ["*/*"],
  image: ["image/*"],
  video: ["video/*"],
  audio: ["audio/*"],
  signature: ["image/png", "image/jpeg", "image/webp"],
};

/** A MIME type's canonical lower-case form without parameters, or null when malformed. */
export function normaliseType(raw: string): string | null {
  const t = raw.split(";")[0].trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9.+-]*\/[a-z0-9][a-z0-9.+-]*$/.test(t) || t.length > 127) return null;
  return ALIASES[t] ?? t;
}

/** The allowed-type patterns of a file-like field (its own list, else the type's default). */
export function allowedTypesOf(field: Pick<RuleField, "type" | "allowedTypes">): string[] {
  return (field.allowedTypes?.length ? field.allowedTypes : DEFAULT_ALLOWED[field.type] ?? [])
    .map((t) => t.toLowerCase());
}

/**
 * Whether `type` is allowed by `patterns` (`image/*` and `*` wildcards). Blocked types
 * never are; executables only by an exact entry.
 */
export function typeAllowed(type: string, patterns: string[]): boolean {
  if (BLOCKED.has(type)) return false;
  return patterns.some((p) => {
    const canon = ALIASES[p] ?? p;
    if (canon === type) return true;
    if (EXECUTABLE.has(type)) return false;
    if (canon === "*/*" || canon === "*") return true;
    return canon.endsWith("/*") && type.startsWith(canon.slice(0, -1));
  });
}

/** Whether a type is one that must never be accepted. */
export function isBlockedType(type: string): boolean {
  return BLOCKED.has(type);
}

/** A size in MB as messages show it (`5 MB`, `2.5 MB`). */
export function formatMB(bytes: number): string {
  const mb = bytes / MB;
  return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
}

/**
 * The problems of a file about to be uploaded to `field`: its type (`allowedTypes`), an
 * empty file (`file`), its size (`maxSizeMB`; `capBytes` is a lower limit the service
 * sets, such as the plan's per-file size).
 */
export function fileVerdicts(
  field: RuleField,
  file: FileFacts,
  capBytes = Infinity,
): Extract<Verdict, { fail: unknown }>["fail"][] {
  const label = labelOf(field);
  const found: Extract<Verdict, { fail: unknown }>["fail"][] = [];
  const type = normaliseType(file.type);
  if (!type || isBlockedType(type) || !typeAllowed(type, allowedTypesOf(field))) {
    found.push({ type: "allowedTypes", id: "file_kind", params: { label } });
  }
  if (file.size === 0) found.push({ type: "file", id: "file_empty", params: { label } });
  const maxBytes = Math.floor(Math.min(field.maxSizeMB ?? Infinity, capBytes / MB) * MB);
  if (file.size > maxBytes) {
    found.push({ type: "maxSizeMB", id: "file_size", params: { label, max: formatMB(maxBytes) } });
  }
  return found;
}

/** A file's problems for `field` as 422 items (English unless `messages` is given). */
export function checkFile(
  field: RuleField,
  file: FileFacts,
  options: { capBytes?: number; messages?: MessageFormatter } = {},
): Issue[] {
  const message = options.messages ?? english;
  return fileVerdicts(field, file, options.capBytes).map(({ type, id, params }) => ({
    field: field.name,
    fieldId: field.id ?? "",
    message: message(id, params, field),
    type,
    messageId: id,
    params,
  }));
}
