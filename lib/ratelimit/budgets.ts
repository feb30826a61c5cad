/**
 * What this process knows of its rate-limit budgets, shared by every commit that spends one
 * (the submission writer's, the batched spends', an event's). Each such commit checks the
 * budget's entry, so two in flight at once on one budget would fail each other's checks
 * (one key submitting to many forms at once). A spender holds the budget's lock from read
 * to commit, so they take turns, and the entry its commit left is remembered, so the next
 * spender need not read it. Only another process can still move a budget: the next commit's check
 * fails, and the spender forgets the entry and reads it afresh (retries are bounded). The
 * submission writer holds a workspace's feed head and webhook listeners here the same way.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { commitWithRetry } from "@/lib/kv/kv.ts";
import type { BudgetLocks, SpendPlan } from "./types.ts";

/** Budgets remembered at most (one per active sender; forgotten all at once). */
const MAX_REMEMBERED = 10_000;
/** Attempts of a spending commit before it fails with 503 (see commitSpending). */
const MAX_ATTEMPTS = 20;

/** Locks and last-known entries of rate-limit budgets, by JSON-encoded KV key. */
export class LimitBudgets implements BudgetLocks {
  #tails = new Map<string, Promise<void>>();
  #known = new Map<string, Deno.KvEntryMaybe<unknown>>();

  /**
   * Waits until every budget named is free and holds them all; returns the function that
   * releases them. Names are taken in sorted order, so holders never deadlock.
   */
  async acquire(ids: Iterable<string>): Promise<() => void> {
    const releases: (() => void)[] = [];
    for (const id of [...new Set(ids)].sort()) {
      const before = this.#tails.get(id);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      this.#tails.set(id, held);
      releases.push(() => {
        release();
        // The last holder leaves no entry behind.
        if (this.#tails.get(id) === held) this.#tails.delete(id);
      });
      if (before) await before;
    }
    return () => releases.forEach((r) => r());
  }

  /** The entry this process last read or left at a budget, if it still holds it. */
  known(id: string): Deno.KvEntryMaybe<unknown> | undefined {
    return this.#known.get(id);
  }

  /** Keeps entries just read (under the budgets' locks). */
  learn(entries: Iterable<[string, Deno.KvEntryMaybe<unknown>]>): void {
    if (this.#known.size > MAX_REMEMBERED) this.#known.clear();
    for (const [id, entry] of entries) this.#known.set(id, entry);
  }

  /** Keeps the states a successful commit of `plan` left (under the budgets' locks). */
  remember(plan: SpendPlan, versionstamp: string): void {
    this.learn(
      [...plan.states].map((
        [id, { entry, next }],
      ) => [id, next ? { key: entry.key, value: next, versionstamp } : entry]),
    );
  }

  /** Forgets budgets another process may have moved (after a failed check). */
  forget(ids: Iterable<string>): void {
    for (const id of ids) this.#known.delete(id);
  }

  /** Budgets locked or waited for (for tests: none once every spender is done). */
  get locked(): number {
    return this.#tails.size;
  }
}

/** What one attempt built: spends to commit, with the result, or a result needing no commit. */
export type Spending<T> = { plan: SpendPlan; result: T } | { unwritten: T };

/**
 * Commits what `build` adds to an operation: spends of the budgets named, planned against
 * the entries this process knows of them (`known`; `build` reads the others), and anything
 * riding with them. Holds the budgets' locks from read to commit, remembers what a commit
 * left, and forgets what another process moved before retrying (at most 20 attempts, then
 * 503), through commitWithRetry.
 */
export async function commitSpending<T>(
  deps: Pick<Deps, "kv" | "budgets">,
  ids: Iterable<string>,
  build: (
    op: Deno.AtomicOperation,
    known: Map<string, Deno.KvEntryMaybe<unknown>>,
  ) => Promise<Spending<T>>,
): Promise<T> {
  const { kv, budgets } = deps;
  const names = [...new Set(ids)];
  let unwritten: { result: T } | null = null;
  const committed = await commitWithRetry<{ plan: SpendPlan; result: T }>(kv, async (op) => {
    const known = new Map<string, Deno.KvEntryMaybe<unknown>>();
    for (const id of names) {
      const entry = budgets.known(id);
      if (entry) known.set(id, entry);
    }
    const built = await build(op, known);
    if (!("unwritten" in built)) return built;
    unwritten = { result: built.unwritten };
    return null;
  }, {
    maxAttempts: MAX_ATTEMPTS,
    maxBackoffMs: 50,
    hold: () => budgets.acquire(names),
    committed: (built, versionstamp) => budgets.remember(built.plan, versionstamp),
    // Another process wrote meanwhile: the next attempt reads again, after the backoff.
    conflicted: () => budgets.forget(names),
    exhausted: () => errors.unavailable(),
  });
  return committed ? committed.result : unwritten!.result;
}
