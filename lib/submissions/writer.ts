/**
 * Group commit of submissions. Every submit of a form (and mode) joins that form's queue (a
 * `Batcher`, kv/batcher.ts); while one commit is in flight the next requests gather, then go
 * out together in ONE `kv.atomic()`. What that commit writes for each submission, key by key,
 * is in submissions/commit.ts; this module only batches, reads what the batch depends on,
 * commits and retries. A batch goes out as soon as the commit before it ends, never waiting on
 * a timer for more. Without Akismet each commit gives its submissions their final verdicts and
 * announces them (feed events, notification job). Clients never retry against each other: a
 * form's commits are serialised in the process, so are commits spending one rate-limit budget
 * (a key's workspace across its forms, see ratelimit/budgets.ts) and commits checking one
 * workspace's feed head and listeners, and conflicts with other processes are retried by
 * `commitWithRetry`, with a bound.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { newId } from "@/lib/ids.ts";
import { Batcher, maxChecks } from "@/lib/kv/batcher.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, getManyChunked, REBUILD, withKvRetry } from "@/lib/kv/kv.ts";
import { inSpan } from "@/lib/observe/trace.ts";
import { catchUpMarks, MarkWindow } from "@/lib/protection/score_context.ts";
import { limitKey, planSpends, type SpendPlan } from "@/lib/ratelimit/rate_limit.ts";
import {
  asClientError,
  budgetIds,
  forgetSequence,
  type FormQueue,
  type Item,
  knownAbsent,
  limitIdsOf,
  MAX_OWN_COMMITS,
  settleRefused,
  takeBatch,
} from "./batch.ts";
import { applyParts, type FinalState, SubmissionsCommit } from "./commit.ts";
import { feedHeadKey } from "@/lib/feed/append.ts";
import { type Listeners, listenersOf, type Listening } from "@/lib/notify/webhooks.ts";
import { workspaceModel } from "@/lib/protection/verdict.ts";
import type { SpamStats } from "@/lib/spam/learn.ts";
import type { SpamModel } from "@/lib/spam/model.ts";
import { idempotencyKeyOf, settleIdempotent } from "./idempotency.ts";
import { quotaCap, quotaKey, settleQuota } from "./quota.ts";
import type { CreatedBody, SubmissionDraft, SubmissionWriterPort, WriteOutcome } from "./types.ts";

/** Form queues kept at most, idle ones included (each holds up to CONTEXT_SIZE marks). */
const MAX_QUEUES = 256;
/**
 * How long a batch keeps retrying conflicts with other instances before its items get 503.
 * A time, not a count of attempts: an instance committing to the same form wins most races
 * while its cached state lets it commit without a read, so a count would starve the other
 * instance's batches.
 */
export const RETRY_WINDOW_MS = 5_000;
/** The longest backoff between attempts: the other instance keeps committing meanwhile. */
const MAX_BACKOFF_MS = 10;

/**
 * How long a workspace's content model (the global one blended with what its admins' labels
 * taught) is used before its statistics are read again: a label teaches later submissions
 * within this time.
 */
const MODEL_TTL_MS = 1_000;
/** Workspaces whose model and listeners are kept at most (all forgotten at once past it). */
const MAX_WORKSPACES = 1_000;

/** Thrown by commitWithRetry when the window is spent: the open items get 503. */
const GAVE_UP = Symbol("gave up");

/** What one successful commit settles. */
interface Committed {
  live: Item[];
  results: CreatedBody[];
  commit: SubmissionsCommit;
  plan: SpendPlan;
}

/** Per-process group committer; one per composition root. */
export class SubmissionWriter implements SubmissionWriterPort {
  #queues = new Map<string, FormQueue>();
  #deps: Omit<Deps, "writer">;
  /** Each workspace's content model, with when its statistics were read (performance.now). */
  #models = new Map<string, { model: SpamModel; at: number }>();
  /** Each workspace's listeners as computed from the entry they hold. */
  #listeners = new Map<string, Listeners>();
  /** Commits made and submissions stored, for benchmarks. */
  readonly stats = { commits: 0, submissions: 0, conflicts: 0 };

  constructor(deps: Omit<Deps, "writer">) {
    this.#deps = deps;
  }

  /** Queues a submission; resolves once it is durably stored (or replayed). */
  write(draft: SubmissionDraft): Promise<WriteOutcome> {
    const q = this.#queueOf(draft.form.id, draft.mode);
    return new Promise<WriteOutcome>((resolve, reject) => {
      const item: Item = {
        draft,
        id: newId("sub"),
        settled: false,
        resolve: (o) => {
          item.settled = true;
          resolve(o);
        },
        reject: (e) => {
          item.settled = true;
          reject(e);
        },
      };
      q.items.push(item);
    });
  }

  /** Forgets the workspace's content model: the next batch reads its statistics. */
  learned(workspaceId: string): void {
    this.#models.delete(workspaceId);
  }

  /** The form and mode's queue, most recently used last (the idle ones evicted first). */
  #queueOf(formId: string, mode: string): FormQueue {
    const qid = `${formId}/${mode}`;
    let q = this.#queues.get(qid);
    if (q) {
      this.#queues.delete(qid);
    } else {
      const queue: FormQueue = q = { items: null!, seq: null, ownCommits: [], recent: null };
      q.items = new Batcher<Item>({
        take: (pending) => takeBatch(pending, maxChecks(this.#deps.kv)),
        run: (batch) => this.#commitIsolating(queue, batch),
        failed: (batch, err) => batch.forEach((i) => i.settled || i.reject(err)),
        idle: () => this.#evictIdle(),
      });
    }
    this.#queues.set(qid, q);
    return q;
  }

  /**
   * Forgets the least recently used idle queues past MAX_QUEUES. An idle queue is kept so
   * the form's next submission finds its sequence and scoring marks without reading them
   * (a sequence moved meanwhile by another process fails the commit's check, which reads
   * it again).
   */
  #evictIdle(): void {
    for (const [qid, q] of this.#queues) {
      if (this.#queues.size <= MAX_QUEUES) return;
      if (q.items.idle) this.#queues.delete(qid);
    }
  }

  /**
   * Commits a batch; when the commit fails for a reason other than a conflict (a value KV
   * refuses), retries its unsettled items one by one so only the offending one fails.
   */
  async #commitIsolating(q: FormQueue, batch: Item[]): Promise<void> {
    try {
      await this.#commitBatch(q, batch);
    } catch (err) {
      forgetSequence(q);
      const open = batch.filter((i) => !i.settled);
      if (open.length === 1 || batch.length === 1) {
        for (const item of open) item.reject(asClientError(err));
        return;
      }
      for (const item of open) await this.#commitIsolating(q, [item]);
    }
  }

  /** Commits the batch's open items, retrying conflicts; settles every one of them. */
  async #commitBatch(q: FormQueue, batch: Item[]): Promise<void> {
    let open = batch;
    let budgets: string[] = [];
    const { budgets: locks } = this.#deps;
    const done = await commitWithRetry<Committed>(
      this.#deps.kv,
      async (op) => {
        const built = await this.#build(q, open, op);
        if (built === REBUILD || built === null) {
          open = open.filter((i) => !i.settled);
          return open.length ? REBUILD : null;
        }
        return built;
      },
      {
        windowMs: RETRY_WINDOW_MS,
        maxBackoffMs: MAX_BACKOFF_MS,
        maxAttempts: Infinity,
        // The batch's budgets are this process's to spend until the attempt is over.
        hold: () =>
          locks.acquire(
            budgets = [...budgetIds(open), ...this.#sharedKeys(open).map((k) => JSON.stringify(k))],
          ),
        commit: async (op, c) => {
          const started = performance.now();
          const res = await inSpan(
            "submissions.group_commit",
            () => withKvRetry(() => op.commit()),
            { "formwell.submissions": c.live.length },
          );
          this.#deps.metrics?.commit("submissions", (performance.now() - started) / 1000);
          return res;
        },
        committed: (c, versionstamp) => this.#committed(q, c, versionstamp),
        conflicted: () => {
          // Another instance wrote meanwhile (or, near the monthly cap, a commit of another
          // form). What the commit checked is read again by the retry's one read, after the
          // backoff: a read taken before the wait would likely fail again.
          this.stats.conflicts++;
          forgetSequence(q);
          locks.forget(budgets);
          open = open.filter((i) => !i.settled);
        },
        exhausted: () => GAVE_UP,
      },
    ).catch((err) => {
      if (err !== GAVE_UP) throw err;
      for (const item of open) if (!item.settled) item.reject(errors.unavailable());
      return null;
    });
    if (done) {
      done.live.forEach((item, i) => item.resolve({ replayed: false, body: done.results[i] }));
    }
  }

  /**
   * Builds one attempt at committing the open items: settles those that need no write
   * (replayed, over quota, rate-limited); null when none is left, REBUILD when a part
   * refused an item (its writes are in `op`).
   */
  async #build(
    q: FormQueue,
    items: Item[],
    op: Deno.AtomicOperation,
  ): Promise<Committed | null | typeof REBUILD> {
    let live = items;
    const first = live[0].draft;
    // Everything the batch depends on, in one read (KV operations are the cost to count).
    const read = await this.#readState(q, live);
    // The marks an attempt that did not commit added are not the form's.
    q.recent?.revert();
    if (!q.seq) {
      const seqId = JSON.stringify(keys.submissionSeq(first.form.id, first.mode));
      await this.#takeSequence(q, read.get(seqId) as Deno.KvEntryMaybe<number>, first);
    }
    const seq = q.seq!;
    const at = this.#deps.now();
    const quota = settleQuota(settleIdempotent(live, read, at), read, at);
    live = quota.items;
    if (!live.length) return null;
    if (quota.check) op.check(quota.check);
    const plan = await planSpends(this.#deps, live.flatMap((i) => i.draft.limits), op, read);
    live = settleRefused(live, plan.allowed);
    if ((await applyParts(op, live)).size) return REBUILD;
    if (!live.length) return null;
    op.check(seq);
    const final = this.#secondOpinion ? null : await this.#finalState(first, read);
    const commit = new SubmissionsCommit(
      op,
      this.#deps.now(),
      seq.value ?? 0,
      q.recent ??= new MarkWindow([]),
      final,
    );
    const results = live.map((item) => commit.add(this.#deps, item));
    commit.finish(this.#deps, live);
    return { live, results, commit, plan };
  }

  /** Keeps what a successful commit left: the sequence, the marks, the budgets. */
  #committed(q: FormQueue, c: Committed, versionstamp: string): void {
    const { commit, live } = c;
    q.seq = {
      key: keys.submissionSeq(live[0].draft.form.id, live[0].draft.mode),
      value: commit.number,
      versionstamp,
    };
    commit.marks.settle();
    this.#deps.budgets.remember(c.plan, versionstamp);
    const written = new Set<string>();
    for (const item of live) if (item.draft.idempotency) written.add(item.draft.idempotency.key);
    // Checked against the cached sequence (or its absence): no one wrote in between.
    q.ownCommits.push({ versionstamp, idempotencyKeys: written });
    if (q.ownCommits.length > MAX_OWN_COMMITS) q.ownCommits.shift();
    this.stats.commits++;
    this.stats.submissions += live.length;
    for (const s of commit.subs) this.#deps.metrics?.submissions(s.status);
    if (commit.final) {
      const feed = commit.final.feed;
      this.#deps.budgets.learn([[
        JSON.stringify(feed.key),
        { key: feed.key, value: commit.feedSeq, versionstamp },
      ]]);
      // From the commit's start (the submissions' created_at) to its success.
      const delay = (this.#deps.now() - commit.now) / 1000;
      for (const s of commit.subs) this.#deps.metrics?.verdict(s.status, delay);
    }
  }

  /** Whether a second opinion (Akismet) is on: the scoring job then gives final verdicts. */
  get #secondOpinion(): boolean {
    return !!this.#deps.config.akismet;
  }

  /**
   * The entries a final verdict's commit depends on beside the items' budgets: the
   * workspace's feed head (for the mode; checked) and its listeners (covered by the head's
   * check, see notify/webhooks.ts `setListeners`). Commits of one workspace take turns on
   * them in this process, as on a shared budget (ratelimit/budgets.ts).
   */
  #sharedKeys(items: Item[]): Deno.KvKey[] {
    if (this.#secondOpinion || !items.length) return [];
    const d = items[0].draft;
    return [feedHeadKey(d.workspace.id, d.mode), keys.webhookListeners(d.workspace.id)];
  }

  /** What a final verdict's commit needs of the workspace, from the batch's read. */
  async #finalState(
    d: SubmissionDraft,
    read: Map<string, Deno.KvEntryMaybe<unknown>>,
  ): Promise<FinalState> {
    const ws = d.workspace.id;
    if (this.#models.size > MAX_WORKSPACES) this.#models.clear();
    if (this.#listeners.size > MAX_WORKSPACES) this.#listeners.clear();
    const statsKey = keys.spamStats(ws);
    let stats = read.get(JSON.stringify(statsKey));
    if (!stats && !this.#models.has(ws)) {
      stats = await withKvRetry(() => this.#deps.kv.get(statsKey));
    }
    if (stats) {
      const model = await workspaceModel(this.#deps, stats.value as SpamStats | null);
      this.#models.set(ws, { model, at: performance.now() });
    }
    const entry = read.get(JSON.stringify(keys.webhookListeners(ws))) as Deno.KvEntryMaybe<
      Record<string, Listening>
    >;
    let listeners = this.#listeners.get(ws);
    if (listeners?.entry.versionstamp !== entry.versionstamp) {
      listeners = listenersOf(entry);
      this.#listeners.set(ws, listeners);
    }
    return {
      model: this.#models.get(ws)!.model,
      feed: read.get(JSON.stringify(feedHeadKey(ws, d.mode))) as Deno.KvEntryMaybe<number>,
      listeners,
    };
  }

  /**
   * Reads, in one `getMany` (chunked past 10 keys), the form's sequence (unless cached),
   * the items' idempotency records (unless known absent), the monthly quota counter, the
   * rate-limit states and, for final verdicts, the workspace's feed head and listeners
   * (unless remembered) and its spam statistics (when the model is older than
   * MODEL_TTL_MS). Returns the entries by JSON-encoded key, remembered ones included.
   */
  async #readState(q: FormQueue, items: Item[]): Promise<Map<string, Deno.KvEntryMaybe<unknown>>> {
    const first = items[0].draft;
    const wanted = new Map<string, Deno.KvKey>();
    const want = (key: Deno.KvKey) => wanted.set(JSON.stringify(key), key);
    const read = new Map<string, Deno.KvEntryMaybe<unknown>>();
    if (!q.seq) want(keys.submissionSeq(first.form.id, first.mode));
    for (const item of items) {
      if (item.draft.idempotency && !(q.seq && knownAbsent(q, item))) {
        want(idempotencyKeyOf(item.draft));
      }
      limitIdsOf(item).forEach((id, i) => {
        const remembered = this.#deps.budgets.known(id);
        if (remembered) read.set(id, remembered);
        else wanted.set(id, limitKey(item.draft.limits[i]));
      });
    }
    if (quotaCap(first) !== null) want(quotaKey(first, this.#deps.now()));
    // The feed head and the listeners are a pair: the head's check covers the listeners
    // only when both come from one read or both from this process's last commit.
    const shared = this.#sharedKeys(items).map((k) => [JSON.stringify(k), k] as const);
    const known = shared.map(([id]) => this.#deps.budgets.known(id));
    shared.forEach(([id, key], i) => {
      if (known.every(Boolean)) read.set(id, known[i]!);
      else want(key);
    });
    const model = this.#models.get(first.workspace.id);
    if (shared.length && (!model || performance.now() - model.at > MODEL_TTL_MS)) {
      want(keys.spamStats(first.workspace.id));
    }
    const entries = wanted.size ? await getManyChunked(this.#deps.kv, [...wanted.values()]) : [];
    [...wanted.keys()].forEach((id, i) => read.set(id, entries[i]));
    // The shared entries just read are this process's to reuse until a check fails.
    this.#deps.budgets.learn(
      shared.filter(([id]) => wanted.has(id)).map(([id]) => [id, read.get(id)!]),
    );
    return read;
  }

  /**
   * Takes a sequence entry just read as the queue's cached one: the queue's own commits
   * are counted from there, and the scoring marks catch up to it.
   */
  async #takeSequence(
    q: FormQueue,
    seq: Deno.KvEntryMaybe<number>,
    d: SubmissionDraft,
  ): Promise<void> {
    q.seq = seq;
    q.ownCommits = seq.versionstamp
      ? [{ versionstamp: seq.versionstamp, idempotencyKeys: new Set() }]
      : [];
    const known = q.recent?.kept ?? null;
    q.recent = new MarkWindow(
      await catchUpMarks(this.#deps.kv, d.form.id, d.mode, known, seq.value ?? 0),
    );
  }
}
