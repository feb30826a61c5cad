/**
 * Group commit of submissions. Every submit of a form (and mode) joins that form's queue (a
 * `Batcher`, kv/batcher.ts); while one commit is in flight the next requests gather, then go
 * out together in ONE `kv.atomic()`. This module only queues, commits and retries: what a
 * batch depends on is read by submissions/commit_context.ts, what it settles before writing
 * (replays, quota, rate limits, the sequence) by commit_checks.ts, and what it writes, key by
 * key, by commit.ts. A batch goes out as soon as the commit before it ends, never waiting on
 * a timer for more. Clients never retry against each other: a form's commits are serialised
 * in the process, so are commits checking one entry (a key's rate-limit budget across its
 * forms, a workspace's feed head: kv/entry_locks.ts), and conflicts with other processes are
 * retried by `commitWithRetry`, with a bound.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { newId } from "@/lib/ids.ts";
import { Batcher, maxChecks } from "@/lib/kv/batcher.ts";
import { commitWithRetry, REBUILD, withKvRetry } from "@/lib/kv/kv.ts";
import { inSpan } from "@/lib/observe/trace.ts";
import type { SpendPlan } from "@/lib/ratelimit/types.ts";
import { asClientError, type FormQueue, type Item, takeBatch } from "./batch.ts";
import { SubmissionsCommit } from "./commit.ts";
import { settleChecks } from "./commit_checks.ts";
import { CommitContextReader } from "./commit_context.ts";
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
  #context: CommitContextReader;
  /** Commits made and submissions stored, for benchmarks. */
  readonly stats = { commits: 0, submissions: 0, conflicts: 0 };

  constructor(deps: Omit<Deps, "writer">) {
    this.#deps = deps;
    this.#context = new CommitContextReader(deps);
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
    this.#context.learned(workspaceId);
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
      this.#context.forget(q);
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
    let held: string[] = [];
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
        // The batch's checked entries are this process's until the attempt is over.
        hold: () => this.#deps.entryLocks.acquire(held = this.#context.lockIds(open)),
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
          this.#context.forget(q, held);
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
    const ctx = await this.#context.read(q, items);
    const settled = await settleChecks(this.#deps, op, ctx, items);
    if (settled === null || settled === REBUILD) return settled;
    const { live, plan } = settled;
    const commit = new SubmissionsCommit(op, ctx.now, ctx.seq.value ?? 0, ctx.marks, ctx.final);
    const results = live.map((item) => commit.add(this.#deps, item));
    commit.finish(this.#deps);
    return { live, results, commit, plan };
  }

  /** Keeps what a successful commit left (see CommitContextReader.committed); counts it. */
  #committed(q: FormQueue, c: Committed, versionstamp: string): void {
    const { commit, live } = c;
    this.#context.committed(q, commit, c.plan, versionstamp);
    this.stats.commits++;
    this.stats.submissions += live.length;
    for (const s of commit.subs) this.#deps.metrics?.submissions(s.status);
    if (commit.final) {
      // From the commit's start (the submissions' created_at) to its success.
      const delay = (this.#deps.now() - commit.now) / 1000;
      for (const s of commit.subs) this.#deps.metrics?.verdict(s.status, delay);
    }
  }
}
