/**
 * What a batch's commit settles before it writes, each against the commit context
 * (submissions/commit_context.ts) and each adding its checks to the operation: stored
 * Idempotency-Keys replay (idempotency.ts), the plan's monthly quota refuses past its cap
 * (quota.ts, the counter checked near it), the rate-limit budgets spend (ratelimit/
 * rate_limit.ts `planSpends`, each checked), the drafts' other parts apply (`CommitPart`:
 * a CAPTCHA token, attached files) and the form's sequence is checked.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { REBUILD } from "@/lib/kv/kv.ts";
import { planSpends, type SpendPlan } from "@/lib/ratelimit/rate_limit.ts";
import { type Item, settleRefused } from "./batch.ts";
import { applyParts } from "./commit.ts";
import type { CommitContext } from "./commit_context.ts";
import { settleIdempotent } from "./idempotency.ts";
import { settleQuota } from "./quota.ts";

/** The items a commit writes, and the rate-limit spends it makes. */
export interface Settled {
  live: Item[];
  plan: SpendPlan;
}

/**
 * Settles `items` against `ctx`, adding every check to `op`: resolves or rejects those
 * that need no write (replayed, over quota, rate-limited); null when none is left, REBUILD
 * when a part refused an item (its writes are in `op`: the caller builds it again).
 */
export async function settleChecks(
  deps: Pick<Deps, "kv" | "now">,
  op: Deno.AtomicOperation,
  ctx: CommitContext,
  items: Item[],
): Promise<Settled | null | typeof REBUILD> {
  const quota = settleQuota(settleIdempotent(items, ctx.entries, ctx.now), ctx.entries, ctx.now);
  let live = quota.items;
  if (!live.length) return null;
  if (quota.check) op.check(quota.check);
  const plan = await planSpends(deps, live.flatMap((i) => i.draft.limits), op, ctx.entries);
  live = settleRefused(live, plan.allowed);
  if ((await applyParts(op, live)).size) return REBUILD;
  if (!live.length) return null;
  op.check(ctx.seq);
  return { live, plan };
}
