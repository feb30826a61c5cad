/**
 * Writing the event feed: every commit that makes a change a webhook could report
 * (a final verdict, a status change, a delete) appends its events in that same commit.
 * A workspace and mode's feed is numbered by one counter (`feed_seq`) that each such commit
 * reads, checks and advances, so positions follow commit order across processes: a reader
 * that saw position n has seen every event committed before it. One check and one set per
 * commit, whatever the number of events. See docs/decisions/event-feed.md.
 * @module
 */
import type { EventType } from "@/lib/notify/events.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import { type StoredVerdict, verdictOf } from "@/lib/submissions/records.ts";

/** How long the feed keeps an event: 30 days (readers hide older ones; see read.ts). */
export const FEED_KEEP_MS = 30 * 86_400_000;
/** KV's own expiry of entries, a day later (it is lazy: readers never rely on it). */
const FEED_EXPIRE_MS = FEED_KEEP_MS + 86_400_000;

/** One stored feed event: small; its submission's data is read from the record. */
export interface FeedEntry {
  id: string;
  type: EventType;
  /** When the change was committed (ISO). */
  at: string;
  form_id: string;
  form_name: string;
  submission_id: string;
  /** The submission's verdict as the event saw it (the record holds the rest, unchanged). */
  verdict: StoredVerdict;
  previous_status?: string;
}

/** An event to append: what happened to which submission (with its status after it). */
export interface FeedItem {
  id: string;
  type: EventType;
  form: Form;
  submission: Submission;
  previous_status?: string;
}

/** The feed head a commit checks and advances. */
export type FeedHead = Deno.KvEntryMaybe<number>;

/** The key of a workspace and mode's feed head (read it with the commit's other reads). */
export function feedHeadKey(workspaceId: string, mode: Mode): Deno.KvKey {
  return keys.feedSeq(workspaceId, mode);
}

/**
 * Appends `items` (all of `head`'s workspace and mode) to `op` after `head`, which it
 * checks. Returns the new head value; after the commit succeeds the caller's head is
 * `{value, versionstamp: res.versionstamp}`.
 */
export function appendFeed(
  op: Deno.AtomicOperation,
  head: FeedHead,
  items: FeedItem[],
  now: number,
): number {
  let seq = head.value ?? 0;
  if (!items.length) return seq;
  const [workspaceId, mode] = [head.key[1] as string, head.key[2] as Mode];
  const at = new Date(now).toISOString();
  op.check(head);
  for (const it of items) {
    const entry: FeedEntry = {
      id: it.id,
      type: it.type,
      at,
      form_id: it.form.id,
      form_name: it.form.name,
      submission_id: it.submission.id,
      verdict: verdictOf(it.submission),
    };
    if (it.previous_status) entry.previous_status = it.previous_status;
    op.set(keys.feedEvent(workspaceId, mode, ++seq), entry, { expireIn: FEED_EXPIRE_MS });
  }
  op.set(head.key, seq);
  return seq;
}

/**
 * Keeps a deleted submission's record beside the feed (as long as its events), so the
 * `submission.deleted` event, and earlier ones, still carry the submission as it was.
 */
export function keepDeletedRecord(op: Deno.AtomicOperation, record: Submission): void {
  op.set(keys.feedRecord(record.form_id, record.id), record, { expireIn: FEED_EXPIRE_MS });
}

/** The head after a successful commit that advanced it to `value`. */
export function advanced(head: FeedHead, value: number, versionstamp: string): FeedHead {
  return { key: head.key, value, versionstamp };
}
