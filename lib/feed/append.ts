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
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";

/** How long the feed keeps an event: 30 days (readers hide older ones; see read.ts). */
export const FEED_KEEP_MS = 30 * 86_400_000;
/** KV's own expiry of entries, a day later (it is lazy: readers never rely on it). */
const FEED_EXPIRE_MS = FEED_KEEP_MS + 86_400_000;

/**
 * Events one feed key holds at most. An event is at most about 1.8 KB serialised (a
 * 200-character form name, the verdict's reasons and five content tokens), so a key's value
 * stays far below KV's 64 KiB; a commit of the writer's usual batch writes one key.
 */
export const EVENTS_PER_KEY = 24;

/** One feed event as stored: small; its submission's data is read from the record. */
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

/**
 * What a key of the feed holds: the events at the positions up to its own (the key's last
 * part), in order.
 */
export type StoredFeedEvents = FeedEntry[];

/** A feed key's events with their positions; `last` is the key's position. */
export function eventsAt(
  last: number,
  value: StoredFeedEvents,
): { seq: number; event: FeedEntry }[] {
  return value.map((event, i) => ({ seq: last - value.length + 1 + i, event }));
}

/** The feed head a commit checks and advances. */
export type FeedHead = Deno.KvEntryMaybe<number>;

/** The key of a workspace and mode's feed head (read it with the commit's other reads). */
export function feedHeadKey(workspaceId: string, mode: Mode): Deno.KvKey {
  return keys.feedSeq(workspaceId, mode);
}

/** The event `it` as stored, committed at `at` (ISO). */
export function feedEntryOf(it: FeedItem, at: string): FeedEntry {
  const event: FeedEntry = {
    id: it.id,
    type: it.type,
    at,
    form_id: it.form.id,
    form_name: it.form.name,
    submission_id: it.submission.id,
    verdict: verdictOf(it.submission),
  };
  if (it.previous_status) event.previous_status = it.previous_status;
  return event;
}

/**
 * Appends `items` (all of `head`'s workspace and mode) to `op` after `head`, which it
 * checks: up to EVENTS_PER_KEY events a key, each key at its last event's position.
 * Returns the new head value; after the commit succeeds the caller's head is
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
  let entry: FeedEntry[] = [];
  const write = () =>
    op.set(keys.feedEvent(workspaceId, mode, seq), entry, { expireIn: FEED_EXPIRE_MS });
  for (const it of items) {
    entry.push(feedEntryOf(it, at));
    seq++;
    if (entry.length === EVENTS_PER_KEY) {
      write();
      entry = [];
    }
  }
  if (entry.length) write();
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

/** Heads this process committed last, per KV and feed: a later run starts from them. */
const latest = new WeakMap<Deno.Kv, Map<string, FeedHead>>();
/** The tail of each feed's in-process commit line (see {@linkcode commitAppending}). */
const lines = new WeakMap<Deno.Kv, Map<string, Promise<void>>>();
/** Attempts at one commit at most while only the feed moved under it. */
const MAX_FEED_TRIES = 10;

function mapOf<V>(m: WeakMap<Deno.Kv, Map<string, V>>, kv: Deno.Kv): Map<string, V> {
  let v = m.get(kv);
  if (!v) m.set(kv, v = new Map());
  return v;
}

/** The newer of `head` and the head this process last committed (versionstamps grow). */
function freshest(kv: Deno.Kv, head: FeedHead): FeedHead {
  const mine = mapOf(latest, kv).get(JSON.stringify(head.key));
  return mine && (head.versionstamp === null || mine.versionstamp! > head.versionstamp)
    ? mine
    : head;
}

/**
 * Waits for this process's earlier commits to the feed `id` to finish; resolves to the
 * release that lets the next one go.
 */
async function takeTurn(kv: Deno.Kv, id: string): Promise<() => void> {
  const m = mapOf(lines, kv);
  const before = m.get(id) ?? Promise.resolve();
  let done!: () => void;
  const tail = before.then(() => new Promise<void>((r) => done = r));
  m.set(id, tail);
  await before;
  return () => {
    done();
    if (m.get(id) === tail) m.delete(id);
  };
}

/**
 * Commits an operation that appends events: `build` adds the change (with its own checks)
 * and returns the events, on every attempt. This process's commits to one feed take turns
 * from the newest head it committed, so they never conflict with each other; when another
 * process appended meanwhile and `unchanged` says the change's own checks still hold, it
 * builds again on the new head (commitWithRetry, at most MAX_FEED_TRIES attempts). Returns
 * the versionstamp and the head after the commit, or `ok: false` when the change's checks
 * failed (the caller reads again).
 */
export async function commitAppending(
  kv: Deno.Kv,
  head: FeedHead,
  build: (op: Deno.AtomicOperation) => FeedItem[],
  now: () => number,
  unchanged: () => Promise<boolean>,
): Promise<{ ok: true; versionstamp: string; head: FeedHead } | { ok: false }> {
  const id = JSON.stringify(head.key);
  const done: { head?: FeedHead } = {};
  let lost = false;
  const built = await commitWithRetry<{ from: FeedHead; at: number }>(kv, async (op) => {
    if (lost) {
      // The last attempt failed a check: the feed moved, or the change's own checks did.
      if (!(await unchanged())) return null;
      head = await withKvRetry(() => kv.get<number>(head.key));
    }
    lost = true;
    const from = freshest(kv, head);
    return { from, at: appendFeed(op, from, build(op), now()) };
  }, {
    maxAttempts: MAX_FEED_TRIES,
    maxBackoffMs: 8,
    hold: () => takeTurn(kv, id),
    committed: ({ from, at }, versionstamp) => {
      done.head = advanced(from, at, versionstamp);
      mapOf(latest, kv).set(id, done.head);
    },
    exhausted: () => FEED_KEPT_MOVING,
  }).catch((err) => {
    if (err === FEED_KEPT_MOVING) return null;
    throw err;
  });
  return built && done.head
    ? { ok: true, versionstamp: done.head.versionstamp!, head: done.head }
    : { ok: false };
}

/** Thrown by commitWithRetry when the feed kept moving under every attempt. */
const FEED_KEPT_MOVING = Symbol("feed kept moving");
