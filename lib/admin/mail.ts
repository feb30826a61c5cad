/**
 * Account mail (invitations, password resets): {@linkcode enqueueAccountMail} adds a
 * `send_account_mail` job to the caller's commit, so the mail exists only if what it
 * announces was stored, and the request never waits on delivery. The job sends through
 * SMTP when `SMTP_URL` is set, else keeps the mail in the account outbox
 * (lib/notify/outbox.ts, `ACCOUNT_OUTBOX`) that instance owners see in the admin; then
 * {@linkcode logAccountLink} also prints the link to the server log, the one place an
 * operator without a signed-in owner can read it (docs/decisions/account-links-in-server-log.md).
 * @module
 */
import type { Config } from "@/lib/config.ts";
import type { Deps } from "@/lib/deps.ts";
import { ACCOUNT_OUTBOX, listOutbox, LOG_KEEP } from "@/lib/notify/outbox.ts";
import { logger } from "@/lib/observe/log.ts";

export { ACCOUNT_OUTBOX };

/** A message to one account holder. */
export interface AccountMail {
  to: string;
  subject: string;
  text: string;
}

/** A kept message. */
export interface StoredAccountMail extends AccountMail {
  id: string;
  created_at: string;
}

/** The single-use link an account mail carries. */
export interface AccountLink {
  kind: "password_reset" | "invitation";
  url: string;
  /** Epoch ms. */
  expires_at: number;
}

/** Where account mail goes: `email` with `SMTP_URL`, else `outbox` (and the server log). */
export function accountMailGoesTo(config: Pick<Config, "notify">): "email" | "outbox" {
  return config.notify.smtpUrl ? "email" : "outbox";
}

/** Adds an account mail to `op`: it is sent (or kept in the outbox) once `op` commits. */
export function enqueueAccountMail(
  deps: Pick<Deps, "jobs">,
  op: Deno.AtomicOperation,
  mail: AccountMail,
): void {
  deps.jobs.enqueue(op, { type: "send_account_mail", ...mail, attempt: 0 });
}

/**
 * Without `SMTP_URL`, prints an account mail's link to the server log as one JSON line
 * (after the commit that made it); with SMTP it prints nothing.
 */
export function logAccountLink(
  deps: Pick<Deps, "config">,
  to: string,
  link: AccountLink,
): void {
  if (accountMailGoesTo(deps.config) !== "outbox") return;
  logger.info(
    `account mail not sent (no SMTP_URL): ${link.kind.replace("_", " ")} link for ${to}`,
    { kind: link.kind, to, url: link.url, expires_at: new Date(link.expires_at).toISOString() },
  );
}

/** Account mails kept in the outbox, oldest first (optionally only those to `to`). */
export async function listAccountMail(
  deps: Pick<Deps, "kv" | "now">,
  to?: string,
): Promise<StoredAccountMail[]> {
  const mails = await listOutbox(deps, ACCOUNT_OUTBOX, LOG_KEEP);
  return mails.reverse()
    .filter((m) => !to || m.to.includes(to))
    .map((m) => ({ id: m.id, to: m.to[0], subject: m.subject, text: m.text, created_at: m.at }));
}
