/**
 * Group commit of rate-limit spends made outside a submission (schema, validate, upload
 * URLs, the Server Data API, sign-in, refused attempts). Concurrent spends go out together in
 * ONE atomic operation per as many budgets as KV's checks per operation allow, so requests
 * sharing a budget, like a backend's one API key, neither pay a commit each nor conflict
 * with each other (nor with the other commits spending a budget: see kv/entry_locks.ts); a
 * conflict with another process is retried with a bound. An accepted submit spends inside
 * its own group commit instead (submissions/writer.ts).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { Batcher, CommitBudget, maxChecks, type Split } from "@/lib/kv/batcher.ts";
import { getManyChunked } from "@/lib/kv/kv.ts";
import { commitSpending } from "./budgets.ts";
import { limitId, limitKey, planSpends } from "./rate_limit.ts";
import type { LimitSpend, LimitSpender } from "./types.ts";

/** How a batch's spends ended: allowed per spend, and whether a commit carried them. */
interface Settled {
  allowed: boolean[];
  committed: boolean;
}

interface Pending {
  spend: LimitSpend;
  /** The budget's KV key JSON-encoded, once. */
  id: string;
  resolve: (allowed: boolean) => void;
  reject: (err: unknown) => void;
}

/** Per-process batcher of rate-limit spends; one per composition root. */
export class LimitSpends implements LimitSpender {
  #queue = new Batcher<Pending>({
    take: (pending) => take(pending, maxChecks(this.#deps.kv)),
    run: (batch) => this.#settle(batch),
    failed: (batch, err) => batch.forEach((p) => p.reject(err)),
  });
  #deps: Pick<Deps, "kv" | "now" | "entryLocks">;
  /** Commits made and spends settled, for tests and benchmarks. */
  readonly stats = { commits: 0, spends: 0 };

  constructor(deps: Pick<Deps, "kv" | "now" | "entryLocks">) {
    this.#deps = deps;
  }

  /** Spends one unit; resolves whether the budget allowed it (a refusal changes nothing). */
  spend(spend: LimitSpend): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const id = limitId(spend);
      this.#queue.push({ spend, id, resolve, reject });
    });
  }

  /** Commits a batch's spends (refusals write nothing) and settles every one of them. */
  async #settle(batch: Pending[]): Promise<void> {
    try {
      const allowed = await this.#commit(batch);
      batch.forEach((p, i) => p.resolve(allowed[i]));
      this.stats.spends += batch.length;
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }

  /**
   * Commits a batch's spends (see commitSpending); the budgets this process does not know
   * are read together (getMany's ten keys at a time).
   */
  async #commit(batch: Pending[]): Promise<boolean[]> {
    const { kv, entryLocks } = this.#deps;
    const spends = batch.map((p) => p.spend);
    const keys = new Map(batch.map((p) => [p.id, limitKey(p.spend)]));
    const { allowed, committed } = await commitSpending<Settled>(
      this.#deps,
      keys.keys(),
      async (op, known) => {
        const unread = [...keys].filter(([id]) => !known.has(id));
        if (unread.length) {
          const entries = await getManyChunked(kv, unread.map(([, key]) => key));
          unread.forEach(([id], i) => known.set(id, entries[i]));
          entryLocks.learn(unread.map(([id], i) => [id, entries[i]]));
        }
        const plan = await planSpends(this.#deps, spends, op, known);
        const result = { allowed: plan.allowed, committed: plan.allowed.some(Boolean) };
        // A refusal writes nothing: another process can only have spent more meanwhile.
        return result.committed ? { plan, result } : { unwritten: result };
      },
    );
    if (committed) this.stats.commits++;
    return allowed;
  }
}

/**
 * Takes queued spends, in order, whose budgets fit one operation (one check each); a spend
 * of another budget past the last that fits waits for the next batch.
 */
function take(pending: Pending[], checks: number): Split<Pending> {
  const batch: Pending[] = [];
  const rest: Pending[] = [];
  const budget = new CommitBudget({ checks });
  const ids = new Set<string>();
  for (const p of pending) {
    const fresh = ids.has(p.id) ? 0 : 1;
    if (fresh && !budget.fits(1, 0)) {
      rest.push(p);
      continue;
    }
    if (fresh) {
      ids.add(p.id);
      budget.add(1, 0);
    }
    batch.push(p);
  }
  return { batch, rest };
}
