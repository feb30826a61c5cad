/**
 * At most one retry chain per delivery job's events and endpoint. Every `deliver_webhook`
 * job is one attempt of a chain, whose id travels with its retries. A run first claims its
 * attempt in the chain's record (holder token, until when); the commit that logs the
 * attempt and enqueues the next one checks that the claim is still its own. So a second run
 * of one attempt (a queue message delivered again while the first still runs, a job-table
 * lease that ended, a run after the outcome was committed) sends nothing and enqueues
 * nothing: while a claim holds, it is deferred to the claim's end; once the attempt is
 * logged, it is dropped; and a run whose claim was taken over commits nothing.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import { EVENT_TTL_MS } from "./events.ts";
import type { DeliverWebhookJob } from "./jobs.ts";

/** A chain's record: the attempt claimed or logged last, and its holder while it runs. */
export interface ChainState {
  /** The attempt (0-based, as `job.attempt`). */
  attempt: number;
  /** The running claim's token; null once the attempt's outcome is committed. */
  holder: string | null;
  /** When the running claim ends (epoch ms): then another run may take the attempt over. */
  until: number;
}

/** A chain record outlives every job of its chain (their events expire sooner). */
const CHAIN_KEEP_MS = EVENT_TTL_MS + 24 * 3600 * 1000;

/** What a run of an attempt may do. */
export type Claim =
  | { kind: "run"; token: string }
  | { kind: "logged" }
  | { kind: "held"; until: number };

/** Claims `attempt` of a chain for `holdMs`, unless it was logged or another run holds it. */
export async function claimAttempt(
  deps: Pick<Deps, "kv" | "now">,
  webhookId: string,
  chain: string,
  attempt: number,
  holdMs: number,
): Promise<Claim> {
  const key = keys.webhookChain(webhookId, chain);
  let outcome: Claim = { kind: "logged" };
  await commitWithRetry(deps.kv, async (op) => {
    const e = await deps.kv.get<ChainState>(key);
    const s = e.value;
    const now = deps.now();
    if (s && (s.attempt > attempt || (s.attempt === attempt && s.holder === null))) {
      outcome = { kind: "logged" };
      return null;
    }
    if (s && s.attempt === attempt && s.until > now) {
      outcome = { kind: "held", until: s.until };
      return null;
    }
    const token = crypto.randomUUID();
    const next: ChainState = { attempt, holder: token, until: now + holdMs };
    op.check(e).set(key, next, { expireIn: CHAIN_KEEP_MS });
    outcome = { kind: "run", token };
    return true;
  });
  return outcome;
}

/** The chain record, if `token` still holds its attempt (else null: commit nothing). */
export async function heldBy(
  deps: Pick<Deps, "kv">,
  webhookId: string,
  chain: string,
  token: string,
): Promise<Deno.KvEntry<ChainState> | null> {
  const e = await deps.kv.get<ChainState>(keys.webhookChain(webhookId, chain));
  return e.value?.holder === token ? e as Deno.KvEntry<ChainState> : null;
}

/** Adds "attempt logged" to the holder's commit, checked against the record it read. */
export function markLogged(op: Deno.AtomicOperation, held: Deno.KvEntry<ChainState>): void {
  const done: ChainState = { attempt: held.value.attempt, holder: null, until: 0 };
  op.check(held).set(held.key, done, { expireIn: CHAIN_KEEP_MS });
}

/** Re-enqueues a run of an attempt another run holds, for when that claim ends. */
export async function deferRun(
  deps: Pick<Deps, "kv" | "now" | "jobs">,
  job: DeliverWebhookJob,
  until: number,
): Promise<void> {
  const op = deps.kv.atomic();
  deps.jobs.enqueue(op, job, { delay: Math.max(0, until - deps.now()) + 100 });
  if (!(await withKvRetry(() => op.commit())).ok) {
    throw new Error("deferred delivery enqueue failed");
  }
}
