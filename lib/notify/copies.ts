/**
 * What notifications keep about a submission, found without scanning: every stored event
 * about a submission is indexed by the submission's id, and every copy an event leaves (an
 * outbox mail, an email log entry, a delivery log entry) by the event's id, each in the
 * commit that writes it. Copies are kept {@linkcode COPY_KEEP_MS}: readers hide older ones,
 * KV's expiry removes them later, and the indexes expire a day after them. Erasing a
 * person removes, for each of their submissions, its events, their copies and the indexes.
 * See docs/decisions/notification-copies-erasure.md.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { deleteKeys, getManyChunked, keysUnder } from "@/lib/kv/kv.ts";
import { createdEventId } from "./events.ts";

/** How long notification copies are kept (outbox mails, email and delivery log entries). */
export const COPY_KEEP_MS = 30 * 86_400_000;
/** Index entries outlive what they point to by a day (KV's expiry is lazy). */
const INDEX_KEEP_MS = COPY_KEEP_MS + 86_400_000;

/** Whether a copy written at `at` (ISO) is still kept at `now`. */
export function isKept(at: string, now: number): boolean {
  return Date.parse(at) > now - COPY_KEEP_MS;
}

/** Lists a log of copies newest first: at most `limit`, none older than the copies' 30 days. */
export async function listKept<T extends { at: string }>(
  deps: Pick<Deps, "kv" | "now">,
  prefix: Deno.KvKey,
  limit: number,
): Promise<T[]> {
  const out: T[] = [];
  const now = deps.now();
  for await (const e of deps.kv.list<T>({ prefix }, { reverse: true, limit })) {
    if (!isKept(e.value.at, now)) break;
    out.push(e.value);
  }
  return out;
}

/** Adds to `op`: event `eventId` is about submission `submissionId`. */
export function indexEvent(op: Deno.AtomicOperation, submissionId: string, eventId: string): void {
  op.set(keys.eventBySubmission(submissionId, eventId), true, { expireIn: INDEX_KEEP_MS });
}

/** Adds to `op`: event `eventId` left the copy at `copy`. */
export function indexCopy(op: Deno.AtomicOperation, eventId: string, copy: Deno.KvKey): void {
  op.set(keys.notifyCopy(eventId, copy), true, { expireIn: INDEX_KEEP_MS });
}

/** How many of each notification copy erasing a person removes. */
export interface CopyCounts {
  /** Stored events (the webhook body and the data of pending mail and retries). */
  events: number;
  outbox_mails: number;
  email_log_entries: number;
  webhook_deliveries: number;
}

const KIND: Record<string, Exclude<keyof CopyCounts, "events">> = {
  [keys.outbox("")[0]]: "outbox_mails",
  [keys.emailLog("")[0]]: "email_log_entries",
  [keys.webhookDeliveries("")[0]]: "webhook_deliveries",
};

/** What notifications keep about these submissions: every key to delete, counted by kind. */
export async function copiesOf(
  kv: Deno.Kv,
  submissionIds: string[],
): Promise<{ keys: Deno.KvKey[]; counts: CopyCounts }> {
  const counts: CopyCounts = {
    events: 0,
    outbox_mails: 0,
    email_log_entries: 0,
    webhook_deliveries: 0,
  };
  const out: Deno.KvKey[] = [];
  for (const submissionId of submissionIds) {
    const indexed = await keysUnder(kv, keys.eventsBySubmission(submissionId));
    out.push(...indexed);
    // A created event's id is fixed by its submission: found even without its index entry.
    const eventIds = new Set([createdEventId(submissionId), ...indexed.map((k) => String(k[2]))]);
    for (const eventId of eventIds) {
      const chunks = await keysUnder(kv, keys.notifyEvent(eventId));
      if (chunks.length) counts.events++;
      const index = await keysUnder(kv, keys.notifyCopies(eventId));
      const copies = index.map((k) => k.slice(2));
      for (const e of await getManyChunked(kv, copies)) {
        if (e.versionstamp === null) continue;
        const kind = KIND[String(e.key[0])];
        if (kind) counts[kind]++;
        out.push(e.key);
      }
      out.push(...chunks, ...index);
    }
  }
  return { keys: out, counts };
}

/** Removes what notifications keep about these submissions; returns what went. */
export async function eraseCopies(
  deps: Pick<Deps, "kv">,
  submissionIds: string[],
): Promise<CopyCounts> {
  const { keys: found, counts } = await copiesOf(deps.kv, submissionIds);
  await deleteKeys(deps.kv, found);
  return counts;
}
