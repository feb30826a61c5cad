/**
 * The one batching primitive of the KV paths. Work arriving while a KV operation is in
 * flight waits in a `Batcher`'s queue; the next operation takes as much of it as one KV
 * operation holds (the caller's `take`, usually sized with a `CommitBudget`), so a burst
 * pays one trip to KV instead of one each. Users: the submission writer
 * (submissions/writer.ts), the rate-limit spends (ratelimit/spends.ts), the coalesced reads
 * (kv/reads.ts), the verdict runs (jobs/score_batch.ts), the job table's deletions
 * (jobs/table_runner.ts) and independent writes such as upload grants (kv/group_commits.ts).
 * A batch's conflicts with other processes are retried, with a bound and backoff, by
 * `commitWithRetry` (kv/kv.ts).
 * @module
 */
import { delay } from "./kv.ts";

/**
 * KV's checks per atomic operation: Deno allows 100 on a KV file or in memory; a KV Connect
 * server (denokv) and Deno Deploy allow 10.
 */
export const MAX_CHECKS = { local: 100, remote: 10 } as const;
/** Stores served over the network (see markRemote). */
const remoteStores = new WeakSet<Deno.Kv>();

/** Records that `kv` is served over the network: its operations keep to 10 checks. */
export function markRemote(kv: Deno.Kv): void {
  remoteStores.add(kv);
}

/** The checks one atomic operation on `kv` may hold. */
export function maxChecks(kv: Deno.Kv): number {
  return remoteStores.has(kv) ? MAX_CHECKS.remote : MAX_CHECKS.local;
}
/** Stays well inside KV's 800 KiB per atomic operation. */
export const MAX_COMMIT_BYTES = 600 * 1024;
/** KV's largest value: what a write of one value takes at most. */
export const MAX_VALUE_BYTES = 64 * 1024;

/** A batch taken from the queue and the items left waiting, in their order. */
export interface Split<T> {
  batch: T[];
  rest: T[];
}

/**
 * When a batch waits `ms` for more work before it goes out: only while `from` to `until - 1`
 * items wait (a long queue has enough) and the next batch would take them all, and from a
 * drain's first batch on only when `first` is set.
 */
export interface Linger {
  ms: number;
  from: number;
  until: number;
  first?: boolean;
}

/** How a Batcher packs and runs its batches. */
export interface BatcherOptions<T> {
  /** Splits the queue into the next batch (at least one item) and the rest. */
  take: (pending: T[]) => Split<T>;
  /** Runs one batch; settles its items (a throw is passed to `failed`). */
  run: (batch: T[]) => Promise<void>;
  /** Settles a batch whose run threw. */
  failed: (batch: T[], err: unknown) => void;
  linger?: Linger;
  /** Batches in flight at once (default 1: each waits for the one before). */
  concurrency?: number;
  /** Called when the queue is empty and nothing runs. */
  idle?: () => void;
}

/** A queue of pending work drained in batches, one (or `concurrency`) at a time. */
export class Batcher<T> {
  #pending: T[] = [];
  #running = 0;
  #opts: BatcherOptions<T>;
  #waiters: (() => void)[] = [];

  constructor(opts: BatcherOptions<T>) {
    this.#opts = opts;
  }

  /** Whether nothing waits and nothing runs. */
  get idle(): boolean {
    return this.#running === 0 && this.#pending.length === 0;
  }

  /** Resolves once nothing waits and nothing runs. */
  drained(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Queues an item; a batch starts at once when fewer than `concurrency` run. */
  push(item: T): void {
    this.#pending.push(item);
    while (this.#running < (this.#opts.concurrency ?? 1) && this.#pending.length) {
      this.#running++;
      this.#drain();
    }
  }

  async #drain(): Promise<void> {
    const { take, run, failed, linger } = this.#opts;
    for (let first = true; this.#pending.length; first = false) {
      if (linger && (!first || linger.first)) await this.#linger(linger);
      const { batch, rest } = take(this.#pending);
      this.#pending = rest;
      try {
        await run(batch);
      } catch (err) {
        failed(batch, err);
      }
    }
    this.#running--;
    if (!this.idle) return;
    this.#opts.idle?.();
    for (const resolve of this.#waiters.splice(0)) resolve();
  }

  /** Waits as Linger says, when waiting can still make the next batch larger. */
  async #linger(l: Linger): Promise<void> {
    if (this.#shouldLinger(l)) await delay(l.ms);
  }

  /** Whether waiting could make the next batch larger (see Linger). */
  #shouldLinger(l: Linger): boolean {
    const waiting = this.#pending.length;
    if (waiting < l.from || waiting >= l.until) return false;
    // A batch already bounded by its operation's limits cannot grow by waiting.
    return this.#opts.take(this.#pending).rest.length === 0;
  }
}

/** KV's mutations per atomic operation. */
export const MAX_MUTATIONS = 1000;
/** KV's total bytes of the keys one atomic operation writes or checks. */
export const MAX_KEY_BYTES = 80 * 1024;

/** What one item adds to an operation beside its checks and value bytes (when known). */
export interface KeyCost {
  mutations: number;
  keyBytes: number;
}

/**
 * The checks, bytes, items (and, for callers that count them, mutations and key bytes) a KV
 * operation has taken so far, against its limits (checks: `maxChecks` of the store, 10 when
 * not given): the first item always fits (an oversized one goes alone, and KV decides).
 */
export class CommitBudget {
  checks: number;
  bytes = 0;
  items = 0;
  mutations = 0;
  keyBytes = 0;
  #limits: { checks: number; bytes: number; items: number };

  constructor(limits: { checks?: number; bytes?: number; items?: number; reserved?: number }) {
    this.#limits = {
      checks: limits.checks ?? MAX_CHECKS.remote,
      bytes: limits.bytes ?? MAX_COMMIT_BYTES,
      items: limits.items ?? Infinity,
    };
    this.checks = limits.reserved ?? 0;
  }

  /** Whether one more item adding `checks`, `bytes` and `keys` fits. */
  fits(checks: number, bytes: number, keys?: KeyCost): boolean {
    const l = this.#limits;
    return this.items === 0 ||
      (this.items < l.items && this.checks + checks <= l.checks && this.bytes + bytes <= l.bytes &&
        (!keys || (this.mutations + keys.mutations <= MAX_MUTATIONS &&
          this.keyBytes + keys.keyBytes <= MAX_KEY_BYTES)));
  }

  /** Counts an item in. */
  add(checks: number, bytes: number, keys?: KeyCost): void {
    this.items++;
    this.checks += checks;
    this.bytes += bytes;
    if (keys) {
      this.mutations += keys.mutations;
      this.keyBytes += keys.keyBytes;
    }
  }
}
