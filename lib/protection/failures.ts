/**
 * The repeated-failure signal: CAPTCHA and honeypot failures per client identity, kept in
 * KV over a sliding window so every instance sees them. A few raise a submission's spam
 * score; `FAILURE_BLOCK_AT` of them turn further submits into a hard 403 until they age out.
 * A process keeps the records it read or wrote for `FAILURES_KNOWN_MS` (`deps.knownFailures`):
 * its own failures count at once, another instance's within that time.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import type { FailureRecord } from "./types.ts";

/** The sliding window failures are counted over. */
export const FAILURE_WINDOW_MS = 10 * 60_000;
/** This many failures in the window block the identity's submits. */
export const FAILURE_BLOCK_AT = 5;
/** More are never needed to decide; keeps the record small. */
const MAX_KEPT = 10;
/** How long a process trusts a record it read or wrote (as long as an API key's). */
export const FAILURES_KNOWN_MS = 5_000;

function recent(rec: FailureRecord | null, now: number): number[] {
  return (rec?.times ?? []).filter((t) => t > now - FAILURE_WINDOW_MS && t <= now);
}

/** Failures of `identity` inside the window now (the known record, else read). */
export async function failureCount(
  deps: Pick<Deps, "kv" | "now" | "knownFailures">,
  identity: string,
): Promise<number> {
  let rec = deps.knownFailures.get(identity);
  if (rec === undefined) {
    const entry = await withKvRetry(() => deps.kv.get(keys.protectionFailures(identity)));
    rec = learnFailures(deps, identity, entry.value);
  }
  return failuresIn(rec, deps.now());
}

/** Keeps a record just read (a value of `protectionFailures`, or null) and returns it. */
export function learnFailures(
  deps: Pick<Deps, "knownFailures">,
  identity: string,
  stored: unknown,
): FailureRecord | null {
  const rec = stored as FailureRecord | null;
  deps.knownFailures.set(identity, rec);
  return rec;
}

/** The failures inside the window at `now` of a record (or null). */
export function failuresIn(rec: FailureRecord | null, now: number): number {
  return recent(rec, now).length;
}

/** Records one failure; returns the count in the window including it. Never throws. */
export async function recordFailure(
  deps: Pick<Deps, "kv" | "now" | "knownFailures">,
  identity: string,
): Promise<number> {
  const key = keys.protectionFailures(identity);
  try {
    const times = await commitWithRetry(deps.kv, async (op) => {
      const entry = await deps.kv.get<FailureRecord>(key);
      const now = deps.now();
      const kept = [...recent(entry.value, now), now].slice(-MAX_KEPT);
      op.check(entry).set(key, { times: kept } satisfies FailureRecord, {
        expireIn: FAILURE_WINDOW_MS,
      });
      return kept;
    }, { maxAttempts: 10, committed: (kept) => deps.knownFailures.set(identity, { times: kept }) });
    return times?.length ?? 0;
  } catch {
    // Contended beyond the bound: the signal is advisory, the request's answer stands.
    deps.knownFailures.delete(identity);
    return 0;
  }
}
