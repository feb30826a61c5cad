/**
 * Account mail (invitations, password resets) goes through {@linkcode sendAccountMail}
 * alone, so one place decides how it leaves. For now each message is kept in KV.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";

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

/** Kept this long: the longest-lived link a mail carries (an invitation) is dead by then. */
export const ACCOUNT_MAIL_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Sends an account mail: stored under `account_mail/<id>` until a mailer is wired in. */
export async function sendAccountMail(
  deps: Pick<Deps, "kv" | "now">,
  mail: AccountMail,
): Promise<void> {
  const record: StoredAccountMail = {
    id: newId("mail"),
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    created_at: new Date(deps.now()).toISOString(),
  };
  await withKvRetry(() =>
    deps.kv.set(keys.accountMail(record.id), record, { expireIn: ACCOUNT_MAIL_TTL_MS })
  );
}

/** Kept account mails, oldest first (optionally only those to `to`). */
export async function listAccountMail(
  deps: Pick<Deps, "kv">,
  to?: string,
): Promise<StoredAccountMail[]> {
  const out: StoredAccountMail[] = [];
  for await (const e of deps.kv.list<StoredAccountMail>({ prefix: keys.accountMails() })) {
    if (!to || e.value.to === to) out.push(e.value);
  }
  return out;
}
