/**
 * The monthly submission quota in a submission's commit: which counter a live submission
 * counts toward, and which queued submissions a batch refuses past the plan's cap.
 * @module
 */
import { AppError } from "@/lib/errors.ts";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value, utcMonth } from "@/lib/kv/kv.ts";
import { planOf } from "@/lib/workspaces/plans.ts";
import type { SubmissionDraft } from "./types.ts";

/**
 * Within this many submissions of the monthly cap, commits check the quota counter (see
 * settleQuota): more than any burst of concurrent batches could spend at once.
 */
const QUOTA_CHECK_MARGIN = 1_000;

/** The monthly quota of a draft's workspace, or null when unlimited or in test mode. */
export function quotaCap(d: SubmissionDraft): number | null {
  return d.mode === "live" ? planOf(d.workspace.plan).submissionsPerMonth : null;
}

/** The monthly quota counter a draft counts toward. */
export function quotaKey(d: SubmissionDraft, now: number): Deno.KvKey {
  return keys.monthlySubmissions(d.workspace.id, utcMonth(now));
}

/**
 * Refuses (429) the drafts past the plan's monthly quota, given the counter's entry as read
 * (`read`, by JSON-encoded key); returns the indexes kept. Within QUOTA_CHECK_MARGIN of the
 * cap it also returns the counter's entry for the commit to check, so concurrent commits
 * (another form of the workspace, another instance) cannot both spend the last units;
 * further from the cap no check is needed, and none serialises the workspace.
 */
export function settleQuota<T extends { draft: SubmissionDraft; reject: (e: unknown) => void }>(
  items: T[],
  read: ReadonlyMap<string, Deno.KvEntryMaybe<unknown>>,
  now: number,
): { items: T[]; check: Deno.KvEntryMaybe<unknown> | null } {
  const first = items[0]?.draft;
  const cap = first ? quotaCap(first) : null;
  if (!first || cap === null) return { items, check: null };
  const entry = read.get(JSON.stringify(quotaKey(first, now)))!;
  let used = u64Value(entry.value);
  const check = cap - used <= QUOTA_CHECK_MARGIN ? entry : null;
  const kept = items.filter((item) => {
    if (used < cap) {
      used++;
      return true;
    }
    item.reject(
      new AppError(
        429,
        "quota_exceeded",
        `This form's workspace reached its ${cap} submissions this month.`,
      ),
    );
    return false;
  });
  return { items: kept, check };
}
