/**
 * Sign-in with a per-account failure budget: 5 failures are free, then each further failure
 * locks the email for 30 s, doubling up to 15 min. The budget is keyed by an HMAC of the
 * normalised email and kept whether or not the account exists, the password hash always
 * runs, and the answers are the same for both: nothing reveals which emails have accounts.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { hmacSha256Hex } from "@/lib/hmac.ts";
import { keys } from "@/lib/kv/keys.ts";
import { normaliseEmail } from "@/lib/privacy/email_index.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { User } from "@/lib/schemas.ts";
import { verifyLogin } from "./users.ts";

/** Failures allowed before the first lockout. */
export const FREE_FAILURES = 5;
/** The first lockout; each further failure doubles it. */
export const FIRST_LOCK_MS = 30_000;
/** The longest lockout. */
export const MAX_LOCK_MS = 15 * 60_000;
/** A budget with no new failure for this long is forgotten. */
export const FAILURE_MEMORY_MS = 24 * 60 * 60_000;

/** What the sign-in page shows for a wrong email or password. */
export const MISMATCH_MESSAGE = "That email and password do not match an account.";

/** One email's failure record. */
export interface SignInFailures {
  failures: number;
  /** Epoch ms before which every attempt is refused. */
  locked_until: number;
}

/** The signed-in user, or the status and message to show. */
export type SignInOutcome = { user: User } | { status: 401 | 429; error: string };

/** Checks an email and password against the account's failure budget (see module doc). */
export async function signIn(
  deps: Pick<Deps, "kv" | "now" | "secret">,
  email: string,
  password: string,
): Promise<SignInOutcome> {
  const key = keys.signInFailures(emailDigest(deps.secret, email));
  const entry = await withKvRetry(() => deps.kv.get<SignInFailures>(key));
  // The hash runs on every path (also when locked) so timing says nothing.
  const user = email && password ? await verifyLogin(deps, email, password) : null;
  const now = deps.now();
  const locked = entry.value && entry.value.locked_until > now;
  if (locked) return lockedOutcome(entry.value!.locked_until - now);
  if (user) {
    if (entry.value) await withKvRetry(() => deps.kv.delete(key));
    return { user };
  }
  const until = await recordFailure(deps, key);
  return until > now ? lockedOutcome(until - now) : { status: 401, error: MISMATCH_MESSAGE };
}

/** Counts one failure (retrying on a concurrent write); returns the new lock end (epoch ms). */
async function recordFailure(
  deps: Pick<Deps, "kv" | "now">,
  key: ReturnType<typeof keys.signInFailures>,
): Promise<number> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const entry = await withKvRetry(() => deps.kv.get<SignInFailures>(key));
    const failures = (entry.value?.failures ?? 0) + 1;
    const now = deps.now();
    const over = failures - FREE_FAILURES;
    const lockMs = over > 0 ? Math.min(MAX_LOCK_MS, FIRST_LOCK_MS * 2 ** (over - 1)) : 0;
    const next: SignInFailures = { failures, locked_until: lockMs ? now + lockMs : 0 };
    const res = await withKvRetry(() =>
      deps.kv.atomic().check(entry).set(key, next, { expireIn: lockMs + FAILURE_MEMORY_MS })
        .commit()
    );
    if (res.ok) return next.locked_until;
  }
  return 0;
}

function lockedOutcome(ms: number): SignInOutcome {
  const wait = ms >= 60_000
    ? `${Math.ceil(ms / 60_000)} minutes`
    : `${Math.ceil(ms / 1000)} seconds`;
  return {
    status: 429,
    error: `Too many failed sign-ins for this email. Wait ${wait} and try again.`,
  };
}

/** HMAC-SHA256 (keyed by the instance secret) of the trimmed, lower-cased email, hex. */
export function emailDigest(secret: Uint8Array, email: string): string {
  return hmacSha256Hex(secret, `signin:${normaliseEmail(email)}`);
}
