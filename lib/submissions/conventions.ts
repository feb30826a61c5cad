/**
 * Other form services' post conventions (CONTRACT "Other services' conventions"), read from
 * a plain form post and never stored as data: `_replyto`/`_reply_to` (the owner email's
 * reply-to, when a valid address), `_subject` (the owner email's subject: one line, at
 * most 200 characters), `_gotcha` and Netlify's `bot-field` (honeypots whatever the form's
 * own honeypot is called) and Netlify's `form-name` (ignored). `_next` is where a stored
 * submission goes (form_post.ts; `_redirect`'s allowlist, lib/http/redirects.ts),
 * never a refused one. None of them can add a recipient: the owner email goes to the
 * form's configured addresses only.
 * @module
 */
import { headerSafe, plainAddress } from "@/lib/notify/email.ts";
import type { OwnerMail } from "./types.ts";

/** Convention names a post may carry (a field of the form with the name wins). */
export const CONVENTION_NAMES = [
  "_next",
  "_replyto",
  "_reply_to",
  "_subject",
  "_gotcha",
  "bot-field",
  "form-name",
] as const;

/** Conventional honeypot names: filled, the post is refused as the form's honeypot refuses. */
export const HONEYPOT_NAMES = ["_gotcha", "bot-field"] as const;

/** The longest `_subject` kept, in characters. */
export const MAX_POSTED_SUBJECT = 200;

/** What the conventions of one post ask for. */
export interface Conventions {
  ownerMail?: OwnerMail;
  trapped: boolean;
}

/** Reads the conventions out of a post's reserved values (first value of each name). */
export function readConventions(reserved: ReadonlyMap<string, string>): Conventions {
  const replyTo = plainAddress(reserved.get("_replyto")) ?? plainAddress(reserved.get("_reply_to"));
  const subject = postedSubject(reserved.get("_subject"));
  const ownerMail: OwnerMail = {
    ...(subject ? { subject } : {}),
    ...(replyTo ? { reply_to: replyTo } : {}),
  };
  return {
    ownerMail: subject || replyTo ? ownerMail : undefined,
    trapped: HONEYPOT_NAMES.some((n) => (reserved.get(n) ?? "").trim() !== ""),
  };
}

/**
 * A posted subject as one header-safe line: control characters (CR and LF included)
 * become spaces, runs of white space one space, trimmed, at most 200 characters (a longer
 * one is cut and ends with "…"); blank is none.
 */
export function postedSubject(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  return headerSafe(raw.slice(0, 10_000), MAX_POSTED_SUBJECT) || undefined;
}
