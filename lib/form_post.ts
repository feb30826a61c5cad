/**
 * Reading a plain HTML form post (`application/x-www-form-urlencoded` or
 * `multipart/form-data`) into a submit body. Field names are data keys; the reserved
 * names of CONTRACT "No-JS submit" (plus `_idempotency_key`, which hosted pages carry)
 * are taken out, unless the form has a field of that name: a field always wins.
 * @module
 */
import { decodeUtf8, MAX_BODY_BYTES, readBody } from "./body.ts";
import { errors } from "./errors.ts";
import { parseIdempotencyKey } from "./idempotency.ts";
import { planOf } from "./plans.ts";
import { type Field, type Form, isFileType, type Workspace } from "./schemas.ts";

/** Names that are never stored as data (unless a field of the form has the name). */
export const RESERVED_NAMES = [
  "_redirect",
  "redirect",
  "_schema_version",
  "_idempotency_key",
  "cf-turnstile-response",
  "h-captcha-response",
  "g-recaptcha-response",
  "altcha",
] as const;

/** The post field each CAPTCHA provider's widget fills, in order of preference. */
const CAPTCHA_FIELDS: Record<string, string[]> = {
  turnstile: ["cf-turnstile-response"],
  hcaptcha: ["h-captcha-response", "g-recaptcha-response"],
  recaptcha: ["g-recaptcha-response"],
  altcha: ["altcha"],
};

/**
 * Files are buffered in memory on this path, so one post carries at most this much;
 * larger files use the signed-URL flow (the hosted page's island does).
 */
export const MAX_MULTIPART_BYTES = 100 * 1024 * 1024;

/** A file part of a multipart post, for a file-like field. */
export interface PostedFile {
  field: Field;
  file: File;
}

/** A parsed form post. */
export interface FormPost {
  /** Field values as posted (strings, or string lists for repeated names); honeypot kept. */
  data: Record<string, string | string[]>;
  files: PostedFile[];
  redirect?: string;
  schemaVersion?: number;
  captchaToken?: string;
  idempotencyKey?: string;
}

/** The largest body a multipart post to this form may have: text plus each file field's cap. */
export function multipartLimit(form: Form, workspace: Workspace): number {
  const perFile = planOf(workspace.plan).perFileMB;
  let bytes = MAX_BODY_BYTES;
  for (const f of form.fields) {
    if (!isFileType(f.type)) continue;
    bytes += Math.min(f.maxSizeMB ?? perFile, perFile) * 1024 * 1024 + 4096;
  }
  return Math.min(bytes, MAX_MULTIPART_BYTES);
}

/** Reads and splits a form post; a body that cannot be read is a 400 or 413. */
export async function readFormPost(
  req: Request,
  type: "application/x-www-form-urlencoded" | "multipart/form-data",
  form: Form,
  workspace: Workspace,
): Promise<FormPost> {
  const entries: [string, string | File][] = [];
  if (type === "application/x-www-form-urlencoded") {
    const text = decodeUtf8(await readBody(req));
    for (const [k, v] of new URLSearchParams(text)) entries.push([k, v]);
  } else {
    const limit = multipartLimit(form, workspace);
    const bytes = await readBody(req, limit);
    let parsed: FormData;
    try {
      parsed = await new Response(bytes as Uint8Array<ArrayBuffer>, {
        headers: { "content-type": req.headers.get("content-type") ?? "" },
      }).formData();
    } catch {
      throw errors.badRequest("The multipart/form-data body could not be parsed.");
    }
    for (const [k, v] of parsed) entries.push([k, v]);
  }
  return splitEntries(entries, form);
}

/** Sorts posted entries into data, files and the reserved values. */
export function splitEntries(entries: [string, string | File][], form: Form): FormPost {
  const fields = new Map(form.fields.map((f) => [f.name, f]));
  const data: Record<string, string | string[]> = {};
  const reserved = new Map<string, string>();
  const files: PostedFile[] = [];
  for (const [name, value] of entries) {
    const field = fields.get(name);
    if (typeof value !== "string") {
      // An empty file input still posts a part with no name and no bytes: nothing chosen.
      if (value.name === "" && value.size === 0) continue;
      if (!field || !isFileType(field.type)) {
        throw errors.badRequest(`'${name.slice(0, 64)}' is not a file field of this form.`);
      }
      if (files.some((f) => f.field.name === name)) {
        throw errors.badRequest(`'${name}' takes one file.`);
      }
      files.push({ field, file: value });
      continue;
    }
    if (!field && (RESERVED_NAMES as readonly string[]).includes(name)) {
      if (!reserved.has(name)) reserved.set(name, value);
      continue;
    }
    if (field && isFileType(field.type) && value === "") continue;
    const prior = data[name];
    data[name] = prior === undefined ? value : [...(Array.isArray(prior) ? prior : [prior]), value];
  }
  // The hosted page always posts the (empty) honeypot; only a filled one is a signal.
  if (form.honeypot && !data[form.honeypot]) delete data[form.honeypot];
  return {
    data,
    files,
    redirect: reserved.get("_redirect") ?? reserved.get("redirect"),
    schemaVersion: parseSchemaVersion(reserved.get("_schema_version")),
    captchaToken: captchaToken(form, reserved),
    idempotencyKey: reserved.get("_idempotency_key")
      ? parseIdempotencyKey(reserved.get("_idempotency_key"))
      : undefined,
  };
}

function parseSchemaVersion(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  const n = Number(raw);
  if (!/^\d{1,9}$/.test(raw) || n < 1) {
    throw errors.badRequest("'_schema_version' must be a positive integer.");
  }
  return n;
}

function captchaToken(form: Form, reserved: Map<string, string>): string | undefined {
  const provider = form.captcha?.provider;
  if (!provider || provider === "none") return undefined;
  for (const name of CAPTCHA_FIELDS[provider] ?? []) {
    const v = reserved.get(name);
    if (v) {
      if (v.length > 10_000) throw errors.badRequest("The CAPTCHA token is too long.");
      return v;
    }
  }
  return undefined;
}
