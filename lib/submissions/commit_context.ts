/**
 * What a batch's commit depends on, read in one place: the form's sequence, the items'
 * idempotency records, the monthly quota counter, the rate-limit budgets, and, when the
 * commit gives final verdicts, the workspace's feed head, webhook listeners and content
 * model. One `getMany` (chunked past 10 keys) reads whatever this process does not already
 * know; what its own commits left is kept: a form's sequence and scoring marks on its queue,
 * the budgets, feed heads and listeners in the entry locks (kv/entry_locks.ts), the model
 * and the computed listeners here. Each such entry is checked by the commit (the listeners
 * through the feed head, see notify/webhooks.ts `setListeners`), so a value another process
 * moved fails the commit, and `forget` makes the retry read it again.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { feedHeadKey } from "@/lib/feed/append.ts";
import { keys } from "@/lib/kv/keys.ts";
import { getManyChunked, withKvRetry } from "@/lib/kv/kv.ts";
import { type Listeners, listenersOf, type Listening } from "@/lib/notify/webhooks.ts";
import { catchUpMarks, MarkWindow } from "@/lib/protection/score_context.ts";
import { workspaceModel } from "@/lib/protection/verdict.ts";
import { rememberSpends } from "@/lib/ratelimit/budgets.ts";
import { limitKey } from "@/lib/ratelimit/rate_limit.ts";
import type { SpendPlan } from "@/lib/ratelimit/types.ts";
import type { SpamStats } from "@/lib/spam/learn.ts";
import type { SpamModel } from "@/lib/spam/model.ts";
import {
  budgetIds,
  forgetSequence,
  type FormQueue,
  type Item,
  knownAbsent,
  limitIdsOf,
  MAX_OWN_COMMITS,
} from "./batch.ts";
import type { FinalState, SubmissionsCommit } from "./commit.ts";
import { idempotencyKeyOf } from "./idempotency.ts";
import { quotaCap, quotaKey } from "./quota.ts";
import type { SubmissionDraft } from "./types.ts";

/**
 * How long a workspace's content model (the global one blended with what its admins' labels
 * taught) is used before its statistics are read again: a label teaches later submissions
 * within this time.
 */
const MODEL_TTL_MS = 1_000;
/** Workspaces whose model and listeners are kept at most (all forgotten at once past it). */
const MAX_WORKSPACES = 1_000;

/** What one attempt at committing a batch depends on. */
export interface CommitContext {
  /** The form's sequence entry (the commit checks it and numbers from its value). */
  seq: Deno.KvEntryMaybe<number>;
  /**
   * The entries the batch's checks settle on, by JSON-encoded key: the idempotency records
   * read, the quota counter (capped plans), every rate-limit budget's state.
   */
  entries: ReadonlyMap<string, Deno.KvEntryMaybe<unknown>>;
  /** The scoring marks of the form's latest submissions (the commit adds its own). */
  marks: MarkWindow;
  /** What final verdicts need of the workspace; null when the scoring job gives them. */
  final: FinalState | null;
  /** When the context was read: the submissions' `created_at`, the quota's month. */
  now: number;
}

/** Reads and keeps what the submission writer's commits depend on; one per writer. */
export class CommitContextReader {
  #deps: Omit<Deps, "writer">;
  /** Each workspace's content model, with when its statistics were read (performance.now). */
  #models = new Map<string, { model: SpamModel; at: number }>();
  /** Each workspace's listeners as computed from the entry they hold. */
  #listeners = new Map<string, Listeners>();

  constructor(deps: Omit<Deps, "writer">) {
    this.#deps = deps;
  }

  /** Whether the commits give final verdicts (no second opinion, Akismet, is on). */
  get final(): boolean {
    return !this.#deps.config.akismet;
  }

  /**
   * The entries a batch holds locks on while it reads and commits (JSON-encoded keys): its
   * rate-limit budgets and, for final verdicts, the workspace's feed head and listeners,
   * which every commit of the workspace checks.
   */
  lockIds(items: Item[]): string[] {
    return [...budgetIds(items), ...this.#sharedKeys(items).map((k) => JSON.stringify(k))];
  }

  /** Forgets the workspace's content model: the next batch reads its statistics. */
  learned(workspaceId: string): void {
    this.#models.delete(workspaceId);
  }

  /** Reads the context of one attempt at committing `items` (queued on `q`). */
  async read(q: FormQueue, items: Item[]): Promise<CommitContext> {
    const first = items[0].draft;
    const now = this.#deps.now();
    const read = await this.#readEntries(q, items, now);
    // The marks an attempt that did not commit added are not the form's.
    q.recent?.revert();
    if (!q.seq) {
      const seqId = JSON.stringify(keys.submissionSeq(first.form.id, first.mode));
      await this.#takeSequence(q, read.get(seqId) as Deno.KvEntryMaybe<number>, first);
    }
    return {
      seq: q.seq!,
      entries: read,
      marks: q.recent ??= new MarkWindow([]),
      final: this.final ? await this.#finalState(first, read) : null,
      now,
    };
  }

  /**
   * Keeps what a successful commit left: the form's sequence (and the Idempotency-Keys it
   * wrote since the sequence was read), its marks, its budgets' states and the feed head.
   */
  committed(q: FormQueue, commit: SubmissionsCommit, plan: SpendPlan, versionstamp: string): void {
    const first = commit.stored[0].draft;
    q.seq = {
      key: keys.submissionSeq(first.form.id, first.mode),
      value: commit.number,
      versionstamp,
    };
    commit.marks.settle();
    rememberSpends(this.#deps.entryLocks, plan, versionstamp);
    const written = new Set<string>();
    for (const item of commit.stored) {
      if (item.draft.idempotency) written.add(item.draft.idempotency.key);
    }
    // Checked against the cached sequence (or its absence): no one wrote in between.
    q.ownCommits.push({ versionstamp, idempotencyKeys: written });
    if (q.ownCommits.length > MAX_OWN_COMMITS) q.ownCommits.shift();
    if (commit.final) {
      const feed = commit.final.feed;
      this.#deps.entryLocks.learn([[
        JSON.stringify(feed.key),
        { key: feed.key, value: commit.feedSeq, versionstamp },
      ]]);
    }
  }

  /**
   * Forgets what another process may have moved (after a failed check, or a commit that
   * threw): the next attempt reads the sequence, the idempotency records and the entries
   * named (`ids`) again.
   */
  forget(q: FormQueue, ids: string[] = []): void {
    forgetSequence(q);
    this.#deps.entryLocks.forget(ids);
  }

  /**
   * The entries a final verdict's commit depends on beside the items' budgets: the
   * workspace's feed head (for the mode; checked) and its listeners (covered by the head's
   * check, see notify/webhooks.ts `setListeners`).
   */
  #sharedKeys(items: Item[]): Deno.KvKey[] {
    if (!this.final || !items.length) return [];
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
  async #readEntries(
    q: FormQueue,
    items: Item[],
    now: number,
  ): Promise<Map<string, Deno.KvEntryMaybe<unknown>>> {
    const first = items[0].draft;
    const locks = this.#deps.entryLocks;
    const wanted = new Map<string, Deno.KvKey>();
    const want = (key: Deno.KvKey) => wanted.set(JSON.stringify(key), key);
    const read = new Map<string, Deno.KvEntryMaybe<unknown>>();
    if (!q.seq) want(keys.submissionSeq(first.form.id, first.mode));
    for (const item of items) {
      if (item.draft.idempotency && !(q.seq && knownAbsent(q, item))) {
        want(idempotencyKeyOf(item.draft));
      }
      limitIdsOf(item).forEach((id, i) => {
        const remembered = locks.known(id);
        if (remembered) read.set(id, remembered);
        else wanted.set(id, limitKey(item.draft.limits[i]));
      });
    }
    if (quotaCap(first) !== null) want(quotaKey(first, now));
    // The feed head and the listeners are a pair: the head's check covers the listeners
    // only when both come from one read or both from this process's last commit.
    const shared = this.#sharedKeys(items).map((k) => [JSON.stringify(k), k] as const);
    const known = shared.map(([id]) => locks.known(id));
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
    locks.learn(shared.filter(([id]) => wanted.has(id)).map(([id]) => [id, read.get(id)!]));
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
