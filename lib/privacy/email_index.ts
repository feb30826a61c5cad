/**
 * The email index: for each email-type field value of a submission, an entry under the
 * HMAC-SHA256 (keyed by the instance secret) of the trimmed, lower-cased address, so
 * erase and export by person find a person's submissions without scanning and without
 * keeping the address in a key. The record lists its digests so every delete removes
 * exactly the entries it was given, whatever the form became since.
 * @module
 */
import { hmacSha256Hex } from "@/lib/hmac.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import type { Form, Submission } from "@/lib/schemas.ts";

/** The normalised form of an address used for matching: trimmed and lower-cased. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The index digest of an address (hex HMAC-SHA256 of the normalised address). */
export function emailDigest(secret: Uint8Array, email: string): string {
  return hmacSha256Hex(secret, `email:${normaliseEmail(email)}`);
}

/**
 * Index entries one submission gets at most: a group commit holds up to 64 submissions and
 * KV takes 1,000 mutations a commit, so each keeps to a few (the first email fields' values).
 */
export const MAX_EMAIL_ENTRIES = 8;

/**
 * The distinct digests of the email-type field values of a submission of `form` and of the
 * reply-to address its post gave (`_replyto`), capped.
 */
export function emailDigestsOf(secret: Uint8Array, form: Form, s: Submission): string[] {
  const out = new Set<string>();
  for (const f of form.fields) {
    if (f.type !== "email") continue;
    const v = s.fields[f.name];
    for (const one of Array.isArray(v) ? v : [v]) {
      if (typeof one === "string" && one.trim()) out.add(emailDigest(secret, one));
    }
  }
  if (s.owner_mail?.reply_to) out.add(emailDigest(secret, s.owner_mail.reply_to));
  return [...out].slice(0, MAX_EMAIL_ENTRIES);
}

/**
 * Adds a new submission's email index entries to `op` and records their digests on `s`
 * (call before the record is set, so the stored record carries them).
 */
export function addEmailIndex(
  op: Deno.AtomicOperation,
  secret: Uint8Array,
  form: Form,
  s: Submission,
): void {
  const digests = emailDigestsOf(secret, form, s);
  if (!digests.length) return;
  s.email_digests = digests;
  for (const d of digests) {
    op.set(keys.submissionByEmail(s.workspace_id, d, s.mode, s.form_id, s.id), true);
  }
}

/** Removes a deleted submission's email index entries (those its record lists). */
export function removeEmailIndex(op: Deno.AtomicOperation, s: Submission): void {
  for (const d of s.email_digests ?? []) {
    op.delete(keys.submissionByEmail(s.workspace_id, d, s.mode, s.form_id, s.id));
  }
}

/** One entry of a person's index: which submission of which form. */
export interface EmailMatch {
  formId: string;
  id: string;
}

/** Up to `limit` index entries under an address digest in a workspace and mode, in key order. */
export async function emailMatches(
  kv: Deno.Kv,
  workspaceId: string,
  digest: string,
  mode: Mode,
  limit: number,
): Promise<EmailMatch[]> {
  const out: EmailMatch[] = [];
  const prefix = keys.submissionsByEmail(workspaceId, digest, mode);
  for await (const e of kv.list({ prefix }, { limit })) {
    out.push({ formId: e.key[4] as string, id: e.key[5] as string });
  }
  return out;
}
