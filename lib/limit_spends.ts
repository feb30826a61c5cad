/**
 * Group commit of rate-limit spends made outside a submission (schema, validate, events,
 * upload URLs, the Server Data API, refused attempts). Concurrent spends go out together in
 * ONE atomic operation per at most ten budgets (KV's checks per operation), so requests
 * sharing a budget, like a backend's one API key, neither pay a commit each nor conflict
 * with each other; a conflict with another process is retried with a bound. An accepted
 * submit spends inside its own group commit instead (submission_writer.ts).
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
  #deps: Pick<Deps, "kv" | "now">;
  /** Commits made and spends settled, for tests and benchmarks. */
  readonly stats = { commits: 0, spends: 0 };

  constructor(deps: Pick<Deps, "kv" | "now">) {
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

  /** Reads the batch's budgets in one operation, then commits checked against that read. */
  async #commit(spends: LimitSpend[]): Promise<boolean[]> {
    const { kv } = this.#deps;
    const keys = new Map(spends.map((s) => [JSON.stringify(limitKey(s)), limitKey(s)]));
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const entries = await withKvRetry(() => kv.getMany([...keys.values()]));
      const known = new Map([...keys.keys()].map((id, i) => [id, entries[i]]));
      const op = kv.atomic();
      const plan = await planSpends(this.#deps, spends, op, known);
      if (!plan.allowed.some(Boolean)) return plan.allowed;
      const res = await withKvRetry(() => op.commit());
      if (res.ok) {
        this.stats.commits++;
        return plan.allowed;
      }
      await delay(Math.random() * Math.min(2 ** attempt, 50));
    }
    throw errors.unavailable();
  }
}
