/**
 * Reading the event feed: the events after a position, in commit order, at most `limit`,
 * filtered by type, none older than 30 days; each event's data is built the way its
 * webhook's is (`{form, submission, previous_status?}`) from the submission's record,
 * which never changes, and the verdict the event stored. A deleted submission's record is
 * kept beside the feed; one erased since (privacy erase, retention, form deletion) has
 * `submission: null`.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { getManyChunked } from "@/lib/kv/kv.ts";
import type { EventType } from "@/lib/notify/events.ts";
import type { Submission } from "@/lib/schemas.ts";
import { type PublicSubmission, submissionView } from "@/lib/submissions/query.ts";
import { withVerdict } from "@/lib/submissions/records.ts";
import { eventsAt, FEED_KEEP_MS, type FeedEntry, type StoredFeedEvents } from "./append.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";

/** Entries one read looks at most (filtered or expired ones included), then it answers. */
export const MAX_SCAN = 1000;

/** What a feed read asks for. */
export interface FeedQuery {
  workspaceId: string;
  mode: Mode;
  /** A cursor from an earlier read; none: from the oldest event kept. */
  after?: string;
  limit: number;
  /** Only these types; none: all. */
  types?: EventType[];
}

/** One event as the feed answers it. */
export interface FeedEvent {
  id: string;
  type: EventType;
  created_at: string;
  data: {
    form: { public_id: string; name: string };
    submission: PublicSubmission | null;
    previous_status?: string;
  };
}

/** A page of the feed. */
export interface FeedPage {
  events: FeedEvent[];
  next_cursor: string;
  has_more: boolean;
}

/** The events after `q.after` (see the module doc); `next_cursor` is where to go on. */
export async function readFeed(
  deps: Pick<Deps, "kv" | "now" | "secret">,
  q: FeedQuery,
): Promise<FeedPage> {
  const where = { workspaceId: q.workspaceId, mode: q.mode };
  let pos = q.after ? decodeCursor(deps.secret, q.after, where) : 0;
  const types = q.types?.length ? new Set(q.types) : null;
  const keptAfter = deps.now() - FEED_KEEP_MS;
  const picked: FeedEntry[] = [];
  let scanned = 0;
  let hasMore = false;
  // The first key at or past pos + 1 may also hold events at or before pos: read already.
  const iter = deps.kv.list<StoredFeedEvents>({
    prefix: keys.feedEvents(q.workspaceId, q.mode),
    start: keys.feedEvent(q.workspaceId, q.mode, pos + 1),
  }, { batchSize: Math.min(MAX_SCAN, q.limit + 1) });
  entries: for await (const e of iter) {
    for (const { seq, event } of eventsAt(e.key[3] as number, e.value)) {
      if (seq <= pos) continue;
      if (picked.length === q.limit || scanned === MAX_SCAN) {
        hasMore = true;
        break entries;
      }
      scanned++;
      pos = seq;
      if (Date.parse(event.at) <= keptAfter) continue;
      if (types && !types.has(event.type)) continue;
      picked.push(event);
    }
  }
  return {
    events: await withData(deps, picked),
    next_cursor: encodeCursor(deps.secret, { ...where, seq: pos }),
    has_more: hasMore,
  };
}

/** The entries as events, their submissions read in one chunked `getMany`. */
async function withData(deps: Pick<Deps, "kv">, entries: FeedEntry[]): Promise<FeedEvent[]> {
  const wanted = entries.flatMap((e) => [
    keys.submission(e.form_id, e.submission_id),
    keys.feedRecord(e.form_id, e.submission_id),
  ]);
  const got = await getManyChunked<Submission>(deps.kv, wanted);
  return entries.map((e, i) => {
    const record = got[2 * i].value ?? got[2 * i + 1].value;
    const data: FeedEvent["data"] = {
      form: { public_id: e.form_id, name: e.form_name },
      submission: record ? submissionView(withVerdict(record, e.verdict)) : null,
    };
    if (e.previous_status) data.previous_status = e.previous_status;
    return { id: e.id, type: e.type, created_at: e.at, data };
  });
}
