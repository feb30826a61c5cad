/**
 * The repeated-failure signal: CAPTCHA and honeypot failures per client identity, kept in
 * KV over a sliding window so every instance sees them. A few raise a submission's spam
 * score; `FAILURE_BLOCK_AT` of them turn further submits into a hard 403 until they age out.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";

/** The sliding window failures are counted over. */
export const FAILURE_WINDOW_MS = 10 * 60_000;
/** This many failures in the window block the identity's submits. */
export const FAILURE_BLOCK_AT = 5;
/** More are never needed to decide; keeps the record small. */
const MAX_KEPT = 10;

/** Stored: failure times (ms), oldest first; the window is checked here (KV expiry is lazy). */
interface FailureRecord {
  times: number[];
}

function recent(rec: FailureRecord | null, now: number): number[] {
  return (rec?.times ?? []).filter((t) => t > now - FAILURE_WINDOW_MS && t <= now);
}

/** Failures of `identity` inside the window now. */
export async function failureCount(
  deps: Pick<Deps, "kv" | "now">,
  identity: string,
): Promise<number> {
  const entry = await withKvRetry(() => deps.kv.get(keys.protectionFailures(identity)));
  return failuresIn(entry.value, deps.now());
}

/** The failures inside the window at `now` of a record read with other keys (or null). */
export function failuresIn(stored: unknown, now: number): number {
  return recent(stored as FailureRecord | null, now).length;
}

/** Records one failure; returns the count in the window including it. Never throws. */
export async function recordFailure(
  deps: Pick<Deps, "kv" | "now">,
  identity: string,
): Promise<number> {
  const key = keys.protectionFailures(identity);
  try {
    return await commitWithRetry(deps.kv, async (op) => {
      const entry = await deps.kv.get<FailureRecord>(key);
      const now = deps.now();
      const times = [...recent(entry.value, now), now].slice(-MAX_KEPT);
      op.check(entry).set(key, { times } satisfies FailureRecord, {
        expireIn: FAILURE_WINDOW_MS,
      });
      return times.length;
    }, 10) ?? 0;
  } catch {
    // Contended beyond the bound: the signal is advisory, the request's answer stands.
    return 0;
  }
}
