/**
 * Small Deno KV helpers: bounded retries, KvU64 arithmetic, dates.
 * @module
 */

const MAX_LOCK_RETRIES = 50;

/**
 * Runs `fn`, retrying when SQLite reports "database is locked" (two processes on one KV
 * file). Bounded: after the last attempt the error propagates.
 */
export async function withKvRetry<T>(fn: () => Promise<T>): Promise<T> {
  // deno-lint-ignore formwell/kv-retry -- the helper every retry goes through
  for (let attempt = 0;; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= MAX_LOCK_RETRIES || !isLockedError(err)) throw err;
      await delay(Math.min(2 ** attempt, 50) + Math.random() * 5);
    }
  }
}

/** Whether an error is SQLite's transient lock contention. */
export function isLockedError(err: unknown): boolean {
  const msg = err instanceof Error ? err.message : String(err);
  return /database is locked|SQLITE_BUSY|database table is locked/i.test(msg);
}

/** What an attempt returns when it lost a race: retryConflicts backs off and runs it again. */
export const CONFLICT: unique symbol = Symbol("conflict");
/** What `build` may return to have its operation built again at once (not an attempt). */
export const REBUILD: unique symbol = Symbol("rebuild");

/** The bounds of retryConflicts; every field is optional. */
export interface RetryBounds {
  /** Attempts at most (default 20). */
  maxAttempts?: number;
  /** Also stops once this long passed since the first attempt (after at least one). */
  windowMs?: number;
  /** The longest random backoff after a lost attempt, in ms (default 64). */
  maxBackoffMs?: number;
  /** What is thrown once the attempts are spent (default a plain Error). */
  exhausted?: () => unknown;
}

/**
 * Runs `attempt` until it returns something other than CONFLICT, with a random backoff
 * (0 to 2^n ms, at most `maxBackoffMs`) after each lost one; throws once the bounds are
 * spent. The one conflict-retry loop of every KV commit.
 */
export async function retryConflicts<T>(
  attempt: () => Promise<T | typeof CONFLICT>,
  bounds: RetryBounds = {},
): Promise<T> {
  const maxAttempts = bounds.maxAttempts ?? 20;
  const giveUpAt = bounds.windowMs === undefined ? Infinity : performance.now() + bounds.windowMs;
  for (let n = 0; n < maxAttempts && (!n || performance.now() < giveUpAt); n++) {
    const result = await attempt();
    if (result !== CONFLICT) return result;
    await delay(Math.random() * Math.min(2 ** n, bounds.maxBackoffMs ?? 64));
  }
  throw bounds.exhausted ? bounds.exhausted() : new Error("KV commit kept conflicting");
}

/** Bounds and hooks of commitWithRetry; every field is optional. */
export interface RetryOptions<T> extends RetryBounds {
  /** Taken before each attempt's build, released after its commit (e.g. budget locks). */
  hold?: () => Promise<() => void>;
  /** Runs after the commit succeeded (still holding), with its versionstamp. */
  committed?: (result: T, versionstamp: string) => void;
  /** Runs after a commit failed its checks (still holding), before the backoff. */
  conflicted?: () => void;
  /** Commits the operation `build` filled (default: `op.commit()`, lock retries included). */
  commit?: (
    op: Deno.AtomicOperation,
    result: T,
  ) => Promise<Deno.KvCommitResult | Deno.KvCommitError>;
}

/**
 * Commits an optimistic transaction built by `build`, retrying on check failures
 * (retryConflicts). `build` is called again on every attempt (it must re-read what it
 * checks). Returns `build`'s result once a commit succeeded, or `null` when `build`
 * returned `null` (nothing to write); `REBUILD` builds again at once.
 */
export async function commitWithRetry<T>(
  kv: Deno.Kv,
  build: (op: Deno.AtomicOperation) => Promise<T | null | typeof REBUILD>,
  options: number | RetryOptions<T> = {},
): Promise<T | null> {
  const o = typeof options === "number" ? { maxAttempts: options } : options;
  return await retryConflicts<T | null>(async () => {
    // deno-lint-ignore formwell/kv-retry -- the helper every retry goes through
    for (;;) {
      const release = o.hold ? await o.hold() : () => {};
      try {
        const op = kv.atomic();
        const result = await withKvRetry(() => build(op));
        if (result === null) return null;
        if (result === REBUILD) continue;
        const res = o.commit ? await o.commit(op, result) : await withKvRetry(() => op.commit());
        if (res.ok) {
          o.committed?.(result, res.versionstamp);
          return result;
        }
        o.conflicted?.();
        return CONFLICT;
      } finally {
        release();
      }
    }
  }, o);
}

/** Resolves after `ms` milliseconds (backoff between retries, never in tests' assertions). */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A KvU64 that, summed, subtracts `n` (KV sums wrap modulo 2^64). */
export function u64Minus(n: number): Deno.KvU64 {
  return new Deno.KvU64((1n << 64n) - BigInt(n));
}

/** A KvU64 that, summed, adds `n` (or subtracts for negative `n`). */
export function u64Delta(n: number): Deno.KvU64 {
  return n >= 0 ? new Deno.KvU64(BigInt(n)) : u64Minus(-n);
}

/** The number in a KvU64 entry value (0 when absent). */
export function u64Value(v: unknown): number {
  return v instanceof Deno.KvU64 ? Number(v.value) : 0;
}

/** The UTC day `YYYY-MM-DD` of a time. */
export function utcDay(t: Date | number): string {
  return new Date(t).toISOString().slice(0, 10);
}

/** The UTC month `YYYY-MM` of a time. */
export function utcMonth(t: Date | number): string {
  return new Date(t).toISOString().slice(0, 7);
}

/** Reads many keys in chunks of 10 (KV's getMany limit). */
export async function getManyChunked<T>(
  kv: Deno.Kv,
  keys: Deno.KvKey[],
): Promise<Deno.KvEntryMaybe<T>[]> {
  const chunks: Promise<Deno.KvEntryMaybe<T>[]>[] = [];
  for (let i = 0; i < keys.length; i += 10) {
    chunks.push(withKvRetry(() => kv.getMany<T[]>(keys.slice(i, i + 10))));
  }
  return (await Promise.all(chunks)).flat();
}

/** Deletes `keys`, 100 a commit (no checks: a delete of a missing key changes nothing). */
export async function deleteKeys(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 100) {
    const op = kv.atomic();
    for (const k of keys.slice(i, i + 100)) op.delete(k);
    if (!(await withKvRetry(() => op.commit())).ok) throw new Error("KV delete commit failed");
  }
}

/** Every key under `prefix`. */
export async function keysUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Deno.KvKey[]> {
  const out: Deno.KvKey[] = [];
  for await (const e of kv.list({ prefix })) out.push(e.key);
  return out;
}
