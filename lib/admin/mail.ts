/**
 * Account mail (invitations, password resets) goes through {@linkcode sendAccountMail}
 * alone. With `SMTP_URL` set it is enqueued as a `send_account_mail` job (the request never
 * waits on SMTP, so a reset's timing shows nothing); without, it is kept in the account
 * outbox (lib/notify/outbox.ts, `ACCOUNT_OUTBOX`) that instance owners see in the admin.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import { ACCOUNT_OUTBOX, listOutbox, LOG_KEEP, putOutbox } from "@/lib/notify/outbox.ts";

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

/** Sends an account mail: a job for SMTP, or straight into the account outbox. */
export async function sendAccountMail(
  deps: Pick<Deps, "kv" | "now" | "config" | "jobs">,
  mail: AccountMail,
): Promise<void> {
  if (!deps.config.notify.smtpUrl) {
    await withKvRetry(() =>
      putOutbox(deps, ACCOUNT_OUTBOX, {
        form_id: "",
        from: deps.config.notify.mailFrom,
        to: [mail.to],
        subject: mail.subject,
        text: mail.text,
        html: "",
      })
    );
    return;
  }
  await withKvRetry(async () => {
    const op = deps.kv.atomic();
    deps.jobs.enqueue(op, { type: "send_account_mail", ...mail, attempt: 0 });
    const res = await op.commit();
    if (!res.ok) throw new Error("account mail enqueue failed");
    return res;
  });
}

/** Account mails kept in the outbox, oldest first (optionally only those to `to`). */
export async function listAccountMail(
  deps: Pick<Deps, "kv">,
  to?: string,
): Promise<StoredAccountMail[]> {
  const mails = await listOutbox(deps, ACCOUNT_OUTBOX, LOG_KEEP);
  return mails.reverse()
    .filter((m) => !to || m.to.includes(to))
    .map((m) => ({ id: m.id, to: m.to[0], subject: m.subject, text: m.text, created_at: m.at }));
}
