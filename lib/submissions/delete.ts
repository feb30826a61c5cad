/**
 * Deleting submissions through the Server Data API: up to 500 ids a call, each removed
 * with its verdict, indexes and counts (submissions/indexes.ts) in commits of five, each
 * commit checking the records and verdicts it deletes so a concurrent status change or
 * delete is never counted twice. Attached files go to a `delete_files` job enqueued in the same commit,
 * and each also gets an `upload_pending` entry so the cleanup sweep removes it should
 * that job never succeed. A delete that notifies (the Server Data API's) appends its
 * `submission.deleted` events to the event feed in the same commit (lib/feed), keeping the
 * records beside them, under the ids its webhooks then carry.
 * @module
 */
import { writableWorkspace } from "@/lib/workspaces/suspension.ts";
import { z } from "zod";
import type { Deps } from "@/lib/deps.ts";
import { AppError } from "@/lib/errors.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import { UPLOAD_GRACE_MS, UPLOAD_URL_TTL_SEC } from "@/lib/uploads/grants.ts";
import { removeEmailIndex } from "@/lib/privacy/email_index.ts";
import { notifyQuietly } from "@/lib/notify/mod.ts";
import { newId } from "@/lib/ids.ts";
import { appendFeed, type FeedHead, feedHeadKey, keepDeletedRecord } from "@/lib/feed/append.ts";
import { CounterDeltas, indexDeleted } from "./indexes.ts";
import { CommitBudget } from "@/lib/kv/batcher.ts";
import { searchCost } from "@/lib/search/entries.ts";
import { readEntries } from "./records.ts";
import { isPlausibleSubmissionId } from "./query.ts";

/** Most ids one delete call takes (SPEC part 8). */
export const MAX_DELETE_IDS = 500;
/**
 * Two checks per deleted submission (record, verdict) and one for the event feed's head,
 * within the 10 checks every store allows an operation (kv/batcher.ts MAX_CHECKS).
 */
const PER_COMMIT = 4;
const MAX_ATTEMPTS = 20;
const BUSY = () => new AppError(503, "unavailable", "The service is busy. Retry the delete.");

/** The delete body; the id count is checked apart so it gets its own code. */
export const deleteBodySchema = z.object({ ids: z.array(z.string().max(200)) }).strict();

/** The ids of a validated delete body: 1..500 of them, else 400 `too_many_ids`. */
export function requireIdCount(ids: string[]): string[] {
  if (ids.length < 1 || ids.length > MAX_DELETE_IDS) {
    throw new AppError(
      400,
      "too_many_ids",
      `Send between 1 and ${MAX_DELETE_IDS} submission ids per call (got ${ids.length}).`,
    );
  }
  return ids;
}

/** What a delete did: how many were removed, and the ids that were not there. */
export interface DeleteResult {
  deleted: number;
  not_found: string[];
}

/**
 * Deletes submissions of `form` in `mode`. Ids of another form, workspace or mode, and
 * ids deleted already, are `not_found`; a repeated id counts once.
 */
export async function deleteSubmissions(
  deps: Deps,
  form: Form,
  mode: Mode,
  ids: string[],
  opts: { notify?: boolean } = {},
): Promise<DeleteResult> {
  await writableWorkspace(deps, form.workspace_id);
  const unique = [...new Set(ids)];
  const notFound = unique.filter((id) => !isPlausibleSubmissionId(id));
  const candidates = unique.filter(isPlausibleSubmissionId);
  let deleted = 0;
  for (let todo = candidates; todo.length;) {
    const chunk = todo.slice(0, PER_COMMIT);
    const r = await deleteChunk(deps, form, mode, chunk, !!opts.notify);
    // Submissions whose search entries did not fit the commit go first in the next.
    todo = [...r.deferred, ...todo.slice(PER_COMMIT)];
    deleted += r.deleted;
    notFound.push(...r.not_found);
    if (!opts.notify) continue;
    await notifyQuietly(
      deps,
      r.records.map((submission, j) => ({
        type: "submission.deleted" as const,
        form,
        submission,
        event_id: r.eventIds[j],
      })),
    );
  }
  const missing = new Set(notFound);
  return { deleted, not_found: unique.filter((id) => missing.has(id)) };
}

/**
 * Deletes up to PER_COMMIT submissions in one checked commit, re-reading on conflict; with
 * `feed`, appends their `submission.deleted` events (ids returned in the records' order).
 * Those whose search entries would take the commit past KV's limits are `deferred` (the
 * first always goes).
 */
async function deleteChunk(
  deps: Pick<Deps, "kv" | "now" | "jobs">,
  form: Form,
  mode: Mode,
  ids: string[],
  feed: boolean,
): Promise<DeleteResult & { records: Submission[]; eventIds: string[]; deferred: string[] }> {
  const kv = deps.kv;
  const eventIds = ids.map(() => newId("msg"));
  let attempts = 0;
  let notFound: string[] = [];
  let deferred: string[] = [];
  const done = await commitWithRetry(kv, async (op) => {
    // The last conflict is a 503 (the client may retry), not an internal error.
    if (attempts++ === MAX_ATTEMPTS) throw BUSY();
    const [entries, head] = await Promise.all([
      readEntries(kv, form.id, ids),
      feed ? withKvRetry(() => kv.get<number>(feedHeadKey(form.workspace_id, mode))) : null,
    ]);
    const counters = new CounterDeltas();
    notFound = [];
    deferred = [];
    const budget = new CommitBudget({ checks: 100 });
    const counted = new Set<string>();
    const paths: string[] = [];
    let deleted = 0;
    const records: Submission[] = [];
    entries.forEach((e, i) => {
      const s = e.value;
      if (!s || s.mode !== mode || s.form_id !== form.id) {
        notFound.push(ids[i]);
        return;
      }
      const search = searchCost(s, counted);
      // Its other keys (record, verdict, indexes, counters, email index, event): 40 at most.
      const cost = { mutations: search.mutations + 40, keyBytes: search.keyBytes + 40 * 160 };
      if (!budget.fits(0, 0, cost)) {
        deferred.push(ids[i]);
        return;
      }
      budget.add(0, 0, cost);
      for (const c of search.fresh) counted.add(c);
      op.check(e.record, e.verdict);
      indexDeleted(op, counters, s);
      removeEmailIndex(op, s);
      // The words it taught stay in the workspace's counts; its own copy of them goes.
      op.delete(keys.spamLearned(s.workspace_id, s.id));
      paths.push(...(s.files ?? []));
      records.push(s);
      deleted++;
    });
    if (deleted === 0) return null;
    const used = eventIds.slice(0, records.length);
    if (head) {
      for (const s of records) keepDeletedRecord(op, entries[ids.indexOf(s.id)].record.value!);
      const items = records.map((s, j) => ({ id: used[j], form, submission: s }));
      appendFeed(
        op,
        head as FeedHead,
        items.map((it) => ({ ...it, type: "submission.deleted" as const })),
        deps.now(),
      );
    }
    await counters.load(kv, op);
    counters.applyTo(op);
    if (paths.length) deps.jobs.enqueue(op, { type: "delete_files", paths });
    // Safety net for a job that never succeeds; looked at only once any upload URL for
    // the path has expired, so a late re-PUT cannot outlive the sweep.
    const sweepAt = deps.now() + UPLOAD_URL_TTL_SEC * 1000 + UPLOAD_GRACE_MS;
    for (const path of paths) op.set(keys.uploadPending(sweepAt, path), true);
    return { deleted, not_found: notFound, records, eventIds: used, deferred };
  }, MAX_ATTEMPTS + 1);
  return done ?? { deleted: 0, not_found: notFound, records: [], eventIds: [], deferred };
}
