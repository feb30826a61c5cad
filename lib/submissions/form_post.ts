/**
 * A plain HTML form post (`application/x-www-form-urlencoded` or `multipart/form-data`) as
 * a submit body: its entries (read by lib/http/form_post.ts) sorted into data, files and
 * reserved values. Field names are data keys; the reserved names of CONTRACT "No-JS
 * submit" (plus `_idempotency_key`, which hosted pages carry, and `_draft_id`: the
 * visitor's draft this submission completes, removed when it is stored)
 * and the other services' conventions (`_replyto`, `_next`, `_subject`, `_gotcha`,
 * `form-name`, `bot-field`: lib/submissions/conventions.ts) are taken out, unless the
 * form has a field of that name: a field always wins.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors, type FieldError } from "@/lib/errors.ts";
import { parseIdempotencyKey } from "./idempotency.ts";
import type { MultipartFile } from "@/lib/http/multipart.ts";
import { planOf } from "@/lib/workspaces/plans.ts";
import { type Field, type Form, isFileType, type Workspace } from "@/lib/schemas.ts";
import { fileError } from "@/lib/uploads/grants.ts";
import { formatMB, MB } from "@/lib/rules/files.ts";
import { acceptDirectUpload } from "@/lib/uploads/direct.ts";
import type { SubmitInput } from "./parse.ts";
import type { OwnerMail, PostedFile } from "./types.ts";
import { CONVENTION_NAMES, readConventions } from "./conventions.ts";

/** Names that are never stored as data (unless a field of the form has the name). */
export const RESERVED_NAMES = [
  "_redirect",
  "redirect",
  "_schema_version",
  "_idempotency_key",
  "_draft_id",
  "cf-turnstile-response",
  "h-captcha-response",
  "g-recaptcha-response",
  "altcha",
  ...CONVENTION_NAMES,
] as const;

/** The post field each CAPTCHA provider's widget fills, in order of preference. */
const CAPTCHA_FIELDS: Record<string, string[]> = {
  turnstile: ["cf-turnstile-response"],
  hcaptcha: ["h-captcha-response", "g-recaptcha-response"],
  recaptcha: ["g-recaptcha-response"],
  altcha: ["altcha"],
};

/** A parsed form post. */
export interface FormPost {
  /** Field values as posted (strings, or string lists for repeated names); honeypot kept. */
  data: Record<string, string | string[]>;
  files: PostedFile[];
  /** `_redirect` (or `redirect`): where the visitor goes after success or a refusal. */
  redirect?: string;
  /** `_next` (Formspree's meaning): where the visitor goes after a stored submission only. */
  next?: string;
  schemaVersion?: number;
  captchaToken?: string;
  idempotencyKey?: string;
  /** `_draft_id`: the draft this submission completes (lib/drafts), removed when it is stored. */
  draftId?: string;
  /** The owner email's subject and reply-to the post asked for (`_subject`, `_replyto`). */
  ownerMail?: OwnerMail;
  /** Whether a conventional honeypot (`_gotcha`, `bot-field`) was filled. */
  trapped: boolean;
}

/** The largest file a field takes on a workspace: its `maxSizeMB` within the plan's cap. */
export function maxFileBytes(field: Field, workspace: Workspace): number {
  return Math.floor(Math.min(field.maxSizeMB ?? Infinity, planOf(workspace.plan).perFileMB) * MB);
}

/** The 422 items of the files whose bytes exceeded their field's limit. */
export function oversizeErrors(files: PostedFile[]): FieldError[] {
  return files.filter((f) => f.file.bytes === null).map(({ field, maxBytes }) => ({
    ...fileError(field, `${field.label || field.name} accepts files up to ${formatMB(maxBytes)}.`),
    type: "maxSizeMB",
  }));
}

/**
 * What a multipart post's idempotency key is compared on: the text values plus each
 * file's name, size and declared type (not the storage path, which is new every time).
 */
export function postedPayload(post: FormPost): Record<string, unknown> {
  const files = post.files.map(({ field, file }) => [
    field.name,
    { file: file.name, size: file.size, type: file.type },
  ]);
  return { ...post.data, ...Object.fromEntries(files) };
}

/** The submit input of a post: its values, reserved fields and files. */
export function postInput(post: FormPost): SubmitInput {
  return {
    body: {
      data: post.data as Record<string, unknown>,
      captcha_token: post.captchaToken,
      schema_version: post.schemaVersion,
      redirect: post.redirect,
      draft_id: post.draftId,
    },
    files: post.files,
  };
}

/**
 * The store stage of a multipart post, after the screen: writes and verifies each file;
 * returns the data with their references, or one 422 for every refused file.
 */
export async function storePostedFiles(
  deps: Deps,
  form: Form,
  input: SubmitInput,
): Promise<Record<string, unknown>> {
  const data: Record<string, unknown> = { ...input.body.data };
  const found: FieldError[] = [];
  for (const { field, file } of input.files) {
    try {
      data[field.name] = await acceptDirectUpload(
        deps,
        form,
        field,
        file.name,
        file.type,
        file.bytes!,
      );
    } catch (err) {
      const items = err instanceof AppError ? err.extra.errors : undefined;
      if (!Array.isArray(items)) throw err;
      found.push(...(items as FieldError[]));
    }
  }
  if (found.length) throw errors.validation(found);
  return data;
}

/** Sorts posted entries into data, files and the reserved values. */
export function splitEntries(
  entries: [string, string | MultipartFile][],
  form: Form,
  workspace: Workspace,
): FormPost {
  const fields = new Map(form.fields.map((f) => [f.name, f]));
  // No prototype: a posted name such as `constructor` or `__proto__` is just a name.
  const data: Record<string, string | string[]> = Object.create(null);
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
      files.push({ field, file: value, maxBytes: maxFileBytes(field, workspace) });
      continue;
    }
    // The form's own honeypot is data (the screen checks it); a conventional one is not.
    if (!field && name !== form.honeypot && (RESERVED_NAMES as readonly string[]).includes(name)) {
      if (!reserved.has(name)) reserved.set(name, value);
      continue;
    }
    if (field && isFileType(field.type) && value === "") continue;
    const prior = data[name];
    data[name] = prior === undefined ? value : [...(Array.isArray(prior) ? prior : [prior]), value];
  }
  // The hosted page always posts the (empty) honeypot; only a filled one is a signal.
  if (form.honeypot && !data[form.honeypot]) delete data[form.honeypot];
  const conventions = readConventions(reserved);
  const named = (k: string) => (reserved.get(k) ?? "").trim() !== "";
  return {
    data,
    files,
    redirect: ["_redirect", "redirect"].filter(named).map((k) => reserved.get(k)!)[0],
    next: named("_next") ? reserved.get("_next") : undefined,
    ownerMail: conventions.ownerMail,
    trapped: conventions.trapped,
    schemaVersion: parseSchemaVersion(reserved.get("_schema_version")),
    captchaToken: captchaToken(form, reserved),
    idempotencyKey: reserved.get("_idempotency_key")
      ? parseIdempotencyKey(reserved.get("_idempotency_key"))
      : undefined,
    draftId: named("_draft_id") ? reserved.get("_draft_id")!.trim().slice(0, 100) : undefined,
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
