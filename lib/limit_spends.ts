/**
 * Group commit of rate-limit spends made outside a submission (schema, validate, upload
 * URLs, the Server Data API, sign-in, refused attempts). Concurrent spends go out together in
 * ONE atomic operation per at most ten budgets (KV's checks per operation), so requests
 * sharing a budget, like a backend's one API key, neither pay a commit each nor conflict
 * with each other (nor with the other commits spending a budget: see limit_budgets.ts); a
 * conflict with another process is retried with a bound. An accepted submit spends inside
 * its own group commit instead (submission_writer.ts).
 * @module
 */
import type { Deps } from "./deps.ts";
import { errors } from "./errors.ts";
import { delay, withKvRetry } from "./kv.ts";
import { limitKey, type LimitSpend, planSpends } from "./rate_limit.ts";

/** KV allows 10 checks per atomic operation: one per distinct budget. */
const MAX_BUDGETS = 10;
/** Commit attempts of one batch before its spends fail with 503. */
const MAX_ATTEMPTS = 20;

interface Pending {
  spend: LimitSpend;
  /** The budget's KV key JSON-encoded, once. */
  id: string;
  resolve: (allowed: boolean) => void;
  reject: (err: unknown) => void;
}

/** Per-process batcher of rate-limit spends; one per composition root. */
export class LimitSpends {
  #pending: Pending[] = [];
  #running = false;
  #deps: Pick<Deps, "kv" | "now" | "budgets">;
  /** Commits made and spends settled, for tests and benchmarks. */
  readonly stats = { commits: 0, spends: 0 };

  constructor(deps: Pick<Deps, "kv" | "now" | "budgets">) {
    this.#deps = deps;
  }

  /** Spends one unit; resolves whether the budget allowed it (a refusal changes nothing). */
  spend(spend: LimitSpend): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const id = JSON.stringify(limitKey(spend));
      this.#pending.push({ spend, id, resolve, reject });
      if (!this.#running) this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      while (this.#pending.length) await this.#settle(this.#take());
    } finally {
      this.#running = false;
    }
  }

  /**
   * Takes queued spends, in order, whose budgets fit one operation; a spend of another
   * budget past the tenth waits for the next batch.
   */
  #take(): Pending[] {
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const ids = new Set<string>();
    for (const p of this.#pending) {
      if (ids.has(p.id) || ids.size < MAX_BUDGETS) {
        ids.add(p.id);
        batch.push(p);
      } else {
        rest.push(p);
      }
    }
    this.#pending = rest;
    return batch;
  }

  /** Commits a batch's spends (refusals write nothing) and settles every one of them. */
  async #settle(batch: Pending[]): Promise<void> {
    try {
      const allowed = await this.#commit(batch.map((p) => p.spend));
      batch.forEach((p, i) => p.resolve(allowed[i]));
      this.stats.spends += batch.length;
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }

  /**
   * Commits a batch's spends against the budgets' last-known entries (those this process
   * does not know are read in one operation), holding their locks from read to commit.
   */
  async #commit(spends: LimitSpend[]): Promise<boolean[]> {
    const { kv, budgets } = this.#deps;
    const keys = new Map(spends.map((s) => [JSON.stringify(limitKey(s)), limitKey(s)]));
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const release = await budgets.acquire(keys.keys());
      try {
        const known = new Map<string, Deno.KvEntryMaybe<unknown>>();
        const unread: [string, Deno.KvKey][] = [];
        for (const [id, key] of keys) {
          const entry = budgets.known(id);
          if (entry) known.set(id, entry);
          else unread.push([id, key]);
        }
        if (unread.length) {
          const entries = await withKvRetry(() => kv.getMany(unread.map(([, key]) => key)));
          unread.forEach(([id], i) => known.set(id, entries[i]));
          budgets.learn(unread.map(([id], i) => [id, entries[i]]));
        }
        const op = kv.atomic();
        const plan = await planSpends(this.#deps, spends, op, known);
        // A refusal writes nothing: another process can only have spent more meanwhile.
        if (!plan.allowed.some(Boolean)) return plan.allowed;
        const res = await withKvRetry(() => op.commit());
        if (res.ok) {
          budgets.remember(plan, res.versionstamp);
          this.stats.commits++;
          return plan.allowed;
        }
        // Another process spent meanwhile: read again.
        budgets.forget(keys.keys());
      } finally {
        release();
      }
      await delay(Math.random() * Math.min(2 ** attempt, 50));
    }
    throw errors.unavailable();
  }
}
