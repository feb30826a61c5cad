/**
 * The Outbox (mail that would have been sent with no `SMTP_URL`) and the email log (what
 * was sent, to whom, accepted or failed): per workspace, capped logs of the last
 * {@linkcode LOG_KEEP} entries (capped_log.ts).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { appendEntry, type CappedLog, listLog } from "./capped_log.ts";

/** The outbox and email log "workspace" of account mail (invitations, resets): no real id. */
export const ACCOUNT_OUTBOX = "_account";

/** Entries kept per workspace in the outbox and in the email log. */
export const LOG_KEEP = 200;

function outboxLog(workspaceId: string): CappedLog {
  return { prefix: keys.outbox(workspaceId), keep: LOG_KEEP };
}

function emailLog(workspaceId: string): CappedLog {
  return { prefix: keys.emailLog(workspaceId), keep: LOG_KEEP };
}

/** A mail kept in the outbox. */
export interface OutboxMail {
  id: string;
  at: string;
  /** Empty for account mail. */
  form_id: string;
  from: string;
  to: string[];
  reply_to?: string;
  subject: string;
  text: string;
  html: string;
}

/** One email log entry. */
export interface EmailLogEntry {
  id: string;
  at: string;
  form_id: string;
  event_id: string;
  /** `resume_link`: a link a visitor asked for to finish a form later (lib/drafts). */
  kind: "owner" | "autoresponder" | "account" | "resume_link";
  to: string[];
  subject: string;
  attempt: number;
  /**
   * `accepted` by SMTP, kept in the `outbox`, `retrying` after a temporary failure, `failed`,
   * or an autoresponse `suppressed` by the autoresponder's limits (`detail` says which).
   */
  result: "accepted" | "outbox" | "retrying" | "failed" | "suppressed";
  detail?: string;
}

/** Keeps a mail in the outbox; `eventId` names the notification event it renders, if any. */
export async function putOutbox(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string,
  mail: Omit<OutboxMail, "id" | "at">,
  eventId?: string,
): Promise<void> {
  const id = newId("mail");
  const entry: OutboxMail = { id, at: new Date(deps.now()).toISOString(), ...mail };
  await appendEntry(
    deps.kv,
    outboxLog(workspaceId),
    keys.outboxMail(workspaceId, id),
    entry,
    eventId,
  );
}

/** The outbox, newest first (the last 30 days). */
export async function listOutbox(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string,
  limit = 50,
): Promise<OutboxMail[]> {
  return await listLog<OutboxMail>(deps, outboxLog(workspaceId), limit);
}

/** Appends to the email log. */
export async function logEmail(
  deps: Pick<Deps, "kv" | "now" | "metrics">,
  workspaceId: string,
  entry: Omit<EmailLogEntry, "id" | "at">,
): Promise<void> {
  const id = newId("mail");
  const full: EmailLogEntry = { id, at: new Date(deps.now()).toISOString(), ...entry };
  deps.metrics?.email(entry.result);
  const key = keys.emailLogEntry(workspaceId, id);
  await appendEntry(deps.kv, emailLog(workspaceId), key, full, entry.event_id);
}

/** The email log, newest first (the last 30 days). */
export async function listEmailLog(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string,
  limit = 50,
): Promise<EmailLogEntry[]> {
  return await listLog<EmailLogEntry>(deps, emailLog(workspaceId), limit);
}
