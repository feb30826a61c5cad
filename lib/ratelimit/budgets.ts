/**
 * Commits that spend rate-limit budgets outside a submission (the batched spends, an
 * event's), each budget's entry held in this process's entry locks (kv/entry_locks.ts)
 * from read to commit and remembered as the commit left it; the submission writer spends
 * through the same locks.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { commitWithRetry } from "@/lib/kv/kv.ts";
import type { EntryLocks } from "@/lib/kv/types.ts";
import type { SpendPlan } from "./types.ts";

/** Attempts of a spending commit before it fails with 503 (see commitSpending). */
const MAX_ATTEMPTS = 20;

/** Keeps the states a successful commit of `plan` left (under the budgets' locks). */
export function rememberSpends(
  locks: EntryLocks,
  plan: SpendPlan,
  versionstamp: string,
): void {
  locks.learn(
    [...plan.states].map((
      [id, { entry, next }],
    ) => [id, next ? { key: entry.key, value: next, versionstamp } : entry]),
  );
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
  deps: Pick<Deps, "kv" | "entryLocks">,
  ids: Iterable<string>,
  build: (
    op: Deno.AtomicOperation,
    known: Map<string, Deno.KvEntryMaybe<unknown>>,
  ) => Promise<Spending<T>>,
): Promise<T> {
  const { kv, entryLocks: locks } = deps;
  const names = [...new Set(ids)];
  let unwritten: { result: T } | null = null;
  const committed = await commitWithRetry<{ plan: SpendPlan; result: T }>(kv, async (op) => {
    const known = new Map<string, Deno.KvEntryMaybe<unknown>>();
    for (const id of names) {
      const entry = locks.known(id);
      if (entry) known.set(id, entry);
    }
    const built = await build(op, known);
    if (!("unwritten" in built)) return built;
    unwritten = { result: built.unwritten };
    return null;
  }, {
    maxAttempts: MAX_ATTEMPTS,
    maxBackoffMs: 50,
    hold: () => locks.acquire(names),
    committed: (built, versionstamp) => rememberSpends(locks, built.plan, versionstamp),
    // Another process wrote meanwhile: the next attempt reads again, after the backoff.
    conflicted: () => locks.forget(names),
    exhausted: () => errors.unavailable(),
  });
  return committed ? committed.result : unwritten!.result;
}
