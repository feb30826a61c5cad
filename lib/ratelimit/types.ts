/**
 * Shared types of rate limiting: a spend, a planned batch of spends, and the per-process
 * part that `Deps` names (the spend batcher).
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
