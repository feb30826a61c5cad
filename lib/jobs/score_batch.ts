/**
 * `score_batch`: the post-commit scoring job, for a second opinion. With Akismet on, the
 * writer's group commit stores first verdicts (signals alone) and enqueues one per batch,
 * naming the submissions it stored (without Akismet the commit gives final verdicts and
 * enqueues none). This job asks Akismet (when on), computes each one's final verdict
 * (protection/score_context.ts `scoreStored`) and writes it: status, status index,
 * per-status counters, the `spam` reasons and `scored_at` move together in one commit per
 * chunk (normally one per batch). The verdict goes in the submission's small verdict key;
 * the record, written by the storing commit, is not written again (submissions/records.ts).
 * Submissions already scored (`scored_at`), re-labelled by an admin or deleted are left
 * alone, so a job delivered twice changes nothing; any other it is given (a seeded one) is
 * scored, Akismet on or not. Each commit checks the form's edits entry
 * (`submission_edits`), which every commit changing an existing submission sets
 * (submissions/indexes.ts): one check covers the whole batch. The verdict's commit also
 * enqueues `notify_created` (lib/notify) when someone hears of one (notify/hearers.ts), and
 * appends a `submission.created` event per submission to the workspace's event feed
 * (lib/feed: one more check for the whole commit); `formwell_spam_verdict_delay_seconds`
 * (lib/observe) times each submission from its storing commit to this one.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { Batcher, type Linger } from "@/lib/kv/batcher.ts";
import { CONFLICT, getManyChunked, retryConflicts, withKvRetry } from "@/lib/kv/kv.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import { workspaceModel } from "@/lib/protection/verdict.ts";
import type { AkismetAnswer } from "@/lib/protection/akismet.ts";
import type { SpamStats } from "@/lib/spam/learn.ts";
import type { SpamModel } from "@/lib/spam/model.ts";
import { CounterDeltas, indexStatusChange } from "@/lib/submissions/indexes.ts";
import { GroupRewrites } from "@/lib/search/postings.ts";
import { pairs, setVerdict } from "@/lib/submissions/records.ts";
import { type Listeners, listenersOf, type Listening } from "@/lib/notify/webhooks.ts";
import { heard, whoHears } from "@/lib/notify/hearers.ts";
import { createdEventId } from "@/lib/notify/events.ts";
import { commitAppending, type FeedHead, feedHeadKey } from "@/lib/feed/append.ts";
import type { Job } from "./queue.ts";
import type { JobContext } from "./types.ts";
import { askAkismet, chunked, verdictsOf } from "./verdicts.ts";

/** Verdict commits that lost a race to an admin's edit are retried this many times. */
const MAX_ATTEMPTS = 20;

/** Handler of `score_batch`. */
export function scoreBatch(
  deps: Deps,
  job: Extract<Job, { type: "score_batch" }>,
  ctx: JobContext,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    runsOf(deps, job).push({ ids: job.ids, ctx, resolve, reject });
  });
}

/** A job waiting for its form's verdict commit. */
interface Waiting {
  ids: string[];
  ctx: JobContext;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Jobs whose verdicts one run writes together at most. */
const MAX_GROUP_JOBS = 16;
/**
 * A run waits this long for more jobs before it reads, unless MAX_GROUP_JOBS already wait:
 * fewer verdict commits per submission under load, for a later verdict.
 */
const LINGER: Linger = { ms: 25, from: 1, until: MAX_GROUP_JOBS, first: true };

/** The verdict runs of each form and mode in this process, by KV. */
const runs = new WeakMap<Deno.Kv, Map<string, Batcher<Waiting>>>();

/**
 * The queue of a form's verdict runs, one at a time: verdict commits all set the form's
 * edits entry, so concurrent ones would fail each other's check; jobs that arrived
 * meanwhile, or within the linger, go together in the next run.
 */
function runsOf(deps: Deps, job: Extract<Job, { type: "score_batch" }>): Batcher<Waiting> {
  let m = runs.get(deps.kv);
  if (!m) runs.set(deps.kv, m = new Map());
  const id = `${job.form_id}/${job.mode}`;
  let q = m.get(id);
  if (!q) {
    m.set(
      id,
      q = new Batcher<Waiting>({
        take: (waiting) => ({
          batch: waiting.slice(0, MAX_GROUP_JOBS),
          rest: waiting.slice(MAX_GROUP_JOBS),
        }),
        run: async (group) => {
          const ctx: JobContext = { complete: (op) => group.forEach((w) => w.ctx.complete(op)) };
          await scoreIds(deps, { ...job, ids: group.flatMap((w) => w.ids) }, ctx);
          group.forEach((w) => w.resolve());
        },
        failed: (group, err) => group.forEach((w) => w.reject(err)),
        linger: LINGER,
        idle: () => m!.delete(id),
      }),
    );
  }
  return q;
}

/** What one verdict run reads (readRun): the edits entry first. */
interface RunState {
  edits: Deno.AtomicCheck;
  form: Form;
  model: SpamModel;
  /** Who hears of these submissions, with the entry to check. */
  listeners: Listeners;
  /** The workspace and mode's event feed head (checked and advanced by each commit). */
  feed: FeedHead;
  /** The submissions, verdicts applied; null where gone. */
  subs: (Submission | null)[];
}

/**
 * Reads a run's state in as few reads as KV allows: the form's edits entry (first: any edit
 * after it fails the commit's check, and every edit before it is visible in the records
 * read with or after it), the form, the workspace's token statistics and listeners, and
 * the submissions (records and verdicts).
 * Null when the form is gone (it took its submissions with it).
 */
async function readRun(
  deps: Deps,
  job: Extract<Job, { type: "score_batch" }>,
): Promise<RunState | null> {
  const workspaceId = job.workspace_id;
  const head: Deno.KvKey[] = [
    keys.submissionEdits(job.form_id, job.mode),
    keys.spamStats(workspaceId),
    keys.webhookListeners(workspaceId),
    feedHeadKey(workspaceId, job.mode),
    keys.form(job.form_id),
  ];
  const all = [
    ...head,
    ...job.ids.flatMap((id) => [
      keys.submission(job.form_id, id),
      keys.submissionVerdict(job.form_id, id),
    ]),
  ];
  // The first read (KV takes 10 keys a read) holds the edits entry and ends before any
  // later one starts, so no record is read before it.
  const first = await withKvRetry(() => deps.kv.getMany<unknown[]>(all.slice(0, 10)));
  const entries = [...first, ...await getManyChunked<unknown>(deps.kv, all.slice(10))];
  const [edits, stats, listeners, feed] = entries;
  const form = entries[4].value as Form | null;
  if (!form || form.workspace_id !== workspaceId) return null;
  return {
    edits,
    form,
    model: await workspaceModel(deps, stats.value as SpamStats | null),
    listeners: listenersOf(listeners as Deno.KvEntryMaybe<Record<string, Listening>>),
    feed: feed as FeedHead,
    subs: pairs(entries.slice(head.length)).map((e) => e.value),
  };
}

async function scoreIds(
  deps: Deps,
  job: Extract<Job, { type: "score_batch" }>,
  ctx: JobContext,
): Promise<void> {
  const editsKey = keys.submissionEdits(job.form_id, job.mode);
  // Akismet's answers, asked once per submission whatever the retries.
  const opinions = new Map<string, AkismetAnswer | null>();
  await retryConflicts(async () => {
    const run = await readRun(deps, job);
    if (!run) return;
    const { form, listeners } = run;
    let edits = run.edits;
    let feed = run.feed;
    // Checked by each verdict commit, so an endpoint added meanwhile makes it retry
    // instead of missing the events.
    const listening = Object.entries(listeners.value);
    const todo = run.subs.filter((s): s is Submission =>
      s !== null && !s.scored_at && !s.spam?.manual
    );
    if (!todo.length) return;
    await askAkismet(deps, form, todo, opinions);
    const chunks = chunked(verdictsOf(deps, form, todo, run.model, opinions));
    for (const [i, scored] of chunks.entries()) {
      const finals = scored.map(([, after]) => after);
      const started = performance.now();
      // The search groups a status change rewrites, read after the edits entry the commit
      // checks (every rewrite sets it).
      const rewrites = new GroupRewrites();
      for (const [before, after] of scored) {
        if (before.status !== after.status) rewrites.restatus(before, after.status);
      }
      await rewrites.load(deps.kv);
      const res = await commitAppending(
        deps.kv,
        feed,
        (op) => {
          op.check(edits).check(listeners.entry);
          const counters = new CounterDeltas(rewrites);
          counters.edited(job.form_id, job.mode);
          for (const [before, after] of scored) {
            indexStatusChange(op, counters, before, after.status);
            setVerdict(op, after);
          }
          counters.applyTo(op);
          // Notifications exist exactly when the verdict does.
          if (finals.some((s) => heard(whoHears(form, "submission.created", s, listening)))) {
            deps.jobs.enqueue(op, {
              type: "notify_created",
              form_id: job.form_id,
              ids: finals.map((s) => s.id),
            });
          }
          if (i === chunks.length - 1) ctx.complete(op);
          return finals.map((s) => ({
            id: createdEventId(s.id),
            type: "submission.created" as const,
            form,
            submission: s,
          }));
        },
        deps.now,
        () => stillHolds(deps.kv, [edits, listeners.entry]),
      );
      deps.metrics?.commit("verdict", (performance.now() - started) / 1000);
      if (!res.ok) return CONFLICT;
      const at = deps.now();
      for (const s of finals) {
        deps.metrics?.verdict(s.status, (at - Date.parse(s.created_at)) / 1000);
      }
      // This commit set the edits entry: the next chunk checks that no one wrote it since.
      edits = { key: editsKey, versionstamp: res.versionstamp };
      feed = res.head;
    }
  }, {
    maxAttempts: MAX_ATTEMPTS,
    maxBackoffMs: 50,
    exhausted: () => new Error("verdict commit kept conflicting"),
  });
}

/** Whether the checked entries are unchanged (a failed commit lost only on the feed's head). */
async function stillHolds(kv: Deno.Kv, checks: Deno.AtomicCheck[]): Promise<boolean> {
  const now = await withKvRetry(() => kv.getMany(checks.map((c) => c.key)));
  return now.every((e, i) => e.versionstamp === checks[i].versionstamp);
}
