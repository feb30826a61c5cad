/**
 * Rate limiting with GCRA (generic cell rate algorithm), state held in KV so every
 * instance shares it. A limit of N per minute admits a burst of N, then one request
 * every 60/N seconds: unlike a fixed window, 10 at 59.9 s and 10 more at 60.1 s cannot
 * pass 20 through 10/min.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { GcraState, LimitSpend, SpendPlan } from "./types.ts";

export type { LimitSpend, SpendPlan } from "./types.ts";

const PERIOD_MS = 60_000;

/**
 * Pure GCRA step: spends `count` units at `now`. Returns whether allowed and the new TAT
 * (unchanged when refused).
 */
export function gcra(tat: number | undefined, now: number, perMinute: number, count = 1): {
  allowed: boolean;
  tat: number;
} {
  const interval = PERIOD_MS / perMinute;
  const start = Math.max(tat ?? 0, now);
  const next = start + interval * count;
  if (next - now > PERIOD_MS + 1e-6) return { allowed: false, tat: tat ?? 0 };
  return { allowed: true, tat: next };
}

/** The KV key of a spend. */
export function limitKey(s: LimitSpend): Deno.KvKey {
  return keys.rateLimit(String(s.route), s.identity);
}

/** A spend's key JSON-encoded: how batches and the entry locks (kv/entry_locks.ts) name it. */
export function limitId(s: LimitSpend): string {
  return JSON.stringify(limitKey(s));
}

/** Reads whether one more unit would be allowed now, without spending it. */
export async function peekLimit(deps: Pick<Deps, "kv" | "now">, s: LimitSpend): Promise<boolean> {
  const entry = await withKvRetry(() => deps.kv.get<GcraState>(limitKey(s)));
  return gcra(entry.value?.tat, deps.now(), s.perMinute).allowed;
}

/**
 * Adds the spends of a batch to an atomic operation: reads each distinct key once (unless
 * `known` already holds its entry, read together with other keys by the caller), checks
 * its versionstamp and writes the new TAT. Refused spends leave the state as it was.
 */
export async function planSpends(
  deps: Pick<Deps, "kv" | "now">,
  spends: LimitSpend[],
  op: Deno.AtomicOperation,
  known: ReadonlyMap<string, Deno.KvEntryMaybe<unknown>> = new Map(),
): Promise<SpendPlan> {
  const distinct = new Map<string, { key: Deno.KvKey; spends: number[] }>();
  spends.forEach((s, i) => {
    const id = limitId(s);
    const slot = distinct.get(id) ?? { key: limitKey(s), spends: [] };
    slot.spends.push(i);
    distinct.set(id, slot);
  });
  const slots = [...distinct.entries()];
  const entries = await Promise.all(
    slots.map(([id, s]) =>
      (known.get(id) as Deno.KvEntryMaybe<GcraState> | undefined) ??
        withKvRetry(() => deps.kv.get<GcraState>(s.key))
    ),
  );
  const now = deps.now();
  const allowed = spends.map(() => false);
  const states: SpendPlan["states"] = new Map();
  slots.forEach(([id, slot], i) => {
    let tat = entries[i].value?.tat;
    let changed = false;
    for (const idx of slot.spends) {
      const r = gcra(tat, now, spends[idx].perMinute);
      allowed[idx] = r.allowed;
      if (r.allowed) {
        tat = r.tat;
        changed = true;
      }
    }
    op.check(entries[i]);
    if (changed && tat !== undefined) {
      const next: GcraState = { tat };
      op.set(slot.key, next, { expireIn: PERIOD_MS * 2 });
      states.set(id, { entry: entries[i], next });
    } else {
      states.set(id, { entry: entries[i] });
    }
  });
  return { allowed, states };
}

/** Whether one more unit would be allowed given an already-read state entry. */
export function wouldAllow(
  entry: Deno.KvEntryMaybe<unknown>,
  now: number,
  perMinute: number,
): boolean {
  return gcra((entry.value as GcraState | null)?.tat, now, perMinute).allowed;
}

/**
 * Spends one unit (endpoints other than an accepted submit), in a group commit with the
 * spends arriving meanwhile (see ratelimit/spends.ts). Throws 429 `rate_limited` when refused.
 */
export async function enforceLimit(deps: Pick<Deps, "limits">, spend: LimitSpend): Promise<void> {
  if (!(await deps.limits.spend(spend))) throw errors.rateLimited();
}

/** Spends one unit if the budget allows, never throwing (counts a rejected attempt). */
export async function spendQuietly(deps: Pick<Deps, "limits">, spend: LimitSpend): Promise<void> {
  try {
    await deps.limits.spend(spend);
  } catch {
    // Contended past the bound or KV failing: the attempt goes uncounted, nothing more.
  }
}

/**
 * Runs `fn`; a refusal (an AppError other than 429) spends one unit of the spend current
 * when it failed, so refused attempts cannot probe for free.
 */
export async function countingRefusals<T>(
  deps: Pick<Deps, "limits">,
  spendOf: () => LimitSpend,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError && err.status !== 429) await spendQuietly(deps, spendOf());
    throw err;
  }
}

/**
 * The identity of a client IP: IPv4 as is, IPv6 grouped by /64 (one subscriber usually
 * holds a whole /64).
 */
export function ipIdentity(ip: string): string {
  if (!ip.includes(":")) return `ip:${ip}`;
  const v4mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (v4mapped) return `ip:${v4mapped[1]}`;
  const [head, tail] = ip.split("::");
  const left = head ? head.split(":") : [];
  const right = tail !== undefined && tail ? tail.split(":") : [];
  const fill = tail !== undefined
    ? Array(Math.max(0, 8 - left.length - right.length)).fill("0")
    : [];
  const groups = [...left, ...fill, ...right].map((g) =>
    (parseInt(g || "0", 16) || 0).toString(16)
  );
  return `ip6:${groups.slice(0, 4).join(":")}::/64`;
}
