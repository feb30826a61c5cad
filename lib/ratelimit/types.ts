/**
 * Shared types of rate limiting: a spend, a planned batch of spends, and the per-process
 * parts that `Deps` names (the spend batcher and the budgets' locks).
 * @module
 */
import type { RateLimitName } from "@/lib/config.ts";

/** One unit to spend from one identity's budget on one route. */
export interface LimitSpend {
  route: RateLimitName | string;
  identity: string;
  perMinute: number;
}

/** Stored state of a budget: the theoretical arrival time in ms. */
export interface GcraState {
  tat: number;
}

/** What planSpends decided. */
export interface SpendPlan {
  /** Per spend, whether it was allowed. */
  allowed: boolean[];
  /**
   * Per distinct key (JSON-encoded): the entry read, and the state the operation writes
   * there, if any (once committed, with the commit's versionstamp).
   */
  states: Map<string, { entry: Deno.KvEntryMaybe<unknown>; next?: GcraState }>;
}

/** Spends made outside a submission, group-committed per process (see spends.ts). */
export interface LimitSpender {
  /** Spends one unit; resolves whether the budget allowed it (a refusal changes nothing). */
  spend(spend: LimitSpend): Promise<boolean>;
  /** Commits made and spends settled, for tests and benchmarks. */
  readonly stats: { commits: number; spends: number };
}

/** This process's locks and last-known entries of budgets, by JSON-encoded key (budgets.ts). */
export interface BudgetLocks {
  /** Holds every budget named until the returned function is called. */
  acquire(ids: Iterable<string>): Promise<() => void>;
  /** The entry this process last read or left at a budget, if it still holds it. */
  known(id: string): Deno.KvEntryMaybe<unknown> | undefined;
  /** Keeps entries just read (under the budgets' locks). */
  learn(entries: Iterable<[string, Deno.KvEntryMaybe<unknown>]>): void;
  /** Keeps the states a successful commit of `plan` left (under the budgets' locks). */
  remember(plan: SpendPlan, versionstamp: string): void;
  /** Forgets budgets another process may have moved. */
  forget(ids: Iterable<string>): void;
  /** Budgets locked or waited for. */
  readonly locked: number;
}
