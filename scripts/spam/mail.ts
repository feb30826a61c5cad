/**
 * Turns a raw RFC 822 message into what a person would have typed into a form: the
 * Subject and the body text. Other headers are dropped; multipart bodies keep their text
 * parts (plain text preferred over HTML in an alternative); base64 and quoted-printable
 * are decoded. HTML stays markup here: the tokenizer strips it, as it does for form text.
 * @module
 */
import { siteOfHost } from "@/lib/protection/pitch.ts";

/** The parts of a message the content model reads. */
export interface MailText {
  subject: string;
  text: string;
}

type Headers = Map<string, string>;

/** Splits a raw message into its Subject and body text. */
export function mailText(raw: string): MailText {
  const { headers, body } = splitMessage(raw.replace(/\r\n?/g, "\n"));
  return {
    subject: decodeWords(headers.get("subject") ?? "").trim(),
    text: partText(headers, body, 0).join("\n").trim(),
  };
}

function splitMessage(raw: string): { headers: Headers; body: string } {
  const end = raw.indexOf("\n\n");
  const head = end === -1 ? raw : raw.slice(0, end);
  const body = end === -1 ? "" : raw.slice(end + 2);
  const headers: Headers = new Map();
  // Unfold continuation lines, then keep the first occurrence of each header.
  for (const line of head.replace(/\n[ \t]+/g, " ").split("\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function param(value: string, name: string): string | undefined {
  const m = value.match(new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, "i"));
  return m ? (m[1] ?? m[2]) : undefined;
}

/** Nested multiparts deeper than this are skipped (hostile input guard). */
const MAX_DEPTH = 5;

function partText(headers: Headers, body: string, depth: number): string[] {
  const type = headers.get("content-type") ?? "text/plain";
  const mime = type.split(";")[0].trim().toLowerCase();
  if (mime.startsWith("multipart/")) {
    const boundary = param(type, "boundary");
    if (!boundary || depth >= MAX_DEPTH) return [];
    const parts = splitParts(body, boundary).map((p) => splitMessage(p));
    if (mime === "multipart/alternative") {
      const plain = parts.find((p) => partMime(p.headers) === "text/plain");
      const chosen = plain ?? parts.find((p) => partMime(p.headers) === "text/html");
      return chosen ? partText(chosen.headers, chosen.body, depth + 1) : [];
    }
    return parts.flatMap((p) => partText(p.headers, p.body, depth + 1));
  }
  if (mime !== "text/plain" && mime !== "text/html" && mime !== "text") return [];
  const charset = param(type, "charset") ?? "utf-8";
  const encoding = (headers.get("content-transfer-encoding") ?? "").trim().toLowerCase();
  if (encoding === "base64") return [decodeBytes(base64Bytes(body), charset)];
  if (encoding === "quoted-printable") return [decodeBytes(qpBytes(body), charset)];
  return [body];
}

function partMime(headers: Headers): string {
  return (headers.get("content-type") ?? "text/plain").split(";")[0].trim().toLowerCase();
}

function splitParts(body: string, boundary: string): string[] {
  const out: string[] = [];
  const lines = body.split("\n");
  let current: string[] | null = null;
  for (const line of lines) {
    const trimmed = line.trimEnd();
    if (trimmed === `--${boundary}--`) break;
    if (trimmed === `--${boundary}`) {
      if (current) out.push(current.join("\n"));
      current = [];
    } else if (current) current.push(line);
  }
  if (current) out.push(current.join("\n"));
  return out;
}

function base64Bytes(body: string): Uint8Array {
  let clean = body.replace(/[^A-Za-z0-9+/]/g, "");
  // A lone trailing character holds no whole byte; otherwise pad to a full group.
  if (clean.length % 4 === 1) clean = clean.slice(0, -1);
  clean += "=".repeat((4 - (clean.length % 4)) % 4);
  try {
    const bin = atob(clean);
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return new Uint8Array();
  }
}

function qpBytes(body: string): Uint8Array {
  const soft = body.replace(/=\n/g, "");
  const out: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const c = soft.charCodeAt(i);
    if (c === 61 && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      out.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c < 256) out.push(c);
    else out.push(...new TextEncoder().encode(soft[i]));
  }
  return Uint8Array.from(out);
}

function decodeBytes(bytes: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(charset.toLowerCase()).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

/** Decodes RFC 2047 encoded words (`=?charset?B|Q?...?=`) in a header value. */
export function decodeWords(value: string): string {
  // Whitespace between two encoded words is not part of the text (RFC 2047 section 6.2).
  return value.replace(
    /=\?([^?]+)\?([bBqQ])\?([^?]*)\?=(?:\s+(?==\?))?/g,
    (_, charset, enc, data) => {
      const bytes = enc.toUpperCase() === "B"
        ? base64Bytes(data)
        : qpBytes(String(data).replace(/_/g, " "));
      return decodeBytes(bytes, String(charset));
    },
  );
}

/**
 * The registrable domain of a raw message's sender (From header, lower case, as the pitch
 * signs read a link's: `example.co.uk`); "" when none.
 */
export function senderDomain(raw: string): string {
  const { headers } = splitMessage(raw.replace(/\r\n?/g, "\n"));
  const from = decodeWords(headers.get("from") ?? "");
  const m = from.match(/@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)/);
  return m ? siteOfHost(m[1]) : "";
}
