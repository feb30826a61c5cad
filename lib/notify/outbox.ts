/**
 * The Outbox (mail that would have been sent with no `SMTP_URL`) and the email log (what
 * was sent, to whom, accepted or failed), both per workspace in KV, newest first, each
 * trimmed to its last {@linkcode LOG_KEEP} entries and kept at most 30 days (copies.ts).
 * A mail or entry of a notification event is indexed by the event, for erasure.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import { COPY_KEEP_MS, indexCopy, listKept } from "./copies.ts";

/** The outbox and email log "workspace" of account mail (invitations, resets): no real id. */
export const ACCOUNT_OUTBOX = "_account";

/** Entries kept per workspace in the outbox and in the email log. */
export const LOG_KEEP = 200;

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
  kind: "owner" | "autoresponder" | "account";
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

/** A log is pruned on about one write in this many (a prune reads the whole log). */
const TRIM_EVERY = 16;

/**
 * Deletes all but the newest `keep` entries under `prefix`, on about one call in
 * {@linkcode TRIM_EVERY}: between prunes a log holds a few more, and readers list only the
 * newest `keep`. `random` is injectable for tests.
 */
export async function trimLog(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  keep: number,
  random: () => number = Math.random,
): Promise<void> {
  if (random() * TRIM_EVERY >= 1) return;
  let i = 0;
  let op = kv.atomic();
  let n = 0;
  for await (const e of kv.list({ prefix }, { reverse: true })) {
    if (++i <= keep) continue;
    op.delete(e.key);
    if (++n % 100 === 0) {
      await op.commit();
      op = kv.atomic();
    }
  }
  if (n % 100) await op.commit();
}

/** Writes a kept copy (expiring) with its index entry when it belongs to an event. */
async function putCopy(
  kv: Deno.Kv,
  key: Deno.KvKey,
  value: unknown,
  eventId: string | undefined,
): Promise<void> {
  const op = kv.atomic().set(key, value, { expireIn: COPY_KEEP_MS });
  if (eventId) indexCopy(op, eventId, key);
  if (!(await withKvRetry(() => op.commit())).ok) throw new Error("mail copy commit failed");
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
  await putCopy(deps.kv, keys.outboxMail(workspaceId, id), entry, eventId);
  await trimLog(deps.kv, keys.outbox(workspaceId), LOG_KEEP);
}

/** The outbox, newest first (the last 30 days). */
export async function listOutbox(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string,
  limit = 50,
): Promise<OutboxMail[]> {
  return await listKept<OutboxMail>(deps, keys.outbox(workspaceId), limit);
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
  await putCopy(deps.kv, keys.emailLogEntry(workspaceId, id), full, entry.event_id);
  await trimLog(deps.kv, keys.emailLog(workspaceId), LOG_KEEP);
}

/** The email log, newest first (the last 30 days). */
export async function listEmailLog(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string,
  limit = 50,
): Promise<EmailLogEntry[]> {
  return await listKept<EmailLogEntry>(deps, keys.emailLog(workspaceId), limit);
}
