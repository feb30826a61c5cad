/**
 * Sign-in with failure budgets: 5 failures are free, then each further failure locks for
 * 30 s, doubling up to 15 min. A browser with a device cookie of the account (devices.ts)
 * spends a budget of its own; every other attempt spends the account's, keyed by an HMAC
 * of the normalised email and kept whether or not the account exists. The password hash
 * always runs and the answers are the same for both: nothing reveals which emails have
 * accounts. A password reset clears the account's budget.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { hmacSha256Hex } from "@/lib/hmac.ts";
import { keys } from "@/lib/kv/keys.ts";
import { normaliseEmail } from "@/lib/privacy/email_index.ts";
import { storedIp } from "@/lib/privacy/ip.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import type { User } from "@/lib/schemas.ts";
import { issueDevice, verifyDevice } from "./devices.ts";
import { findUserByEmail, passwordMatches } from "./users.ts";
import { count } from "@/components/count.ts";

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

/** One email's (or one device's) failure record. */
export interface SignInFailures {
  failures: number;
  /** Epoch ms before which every attempt is refused. */
  locked_until: number;
}

/** The signed-in user and a fresh device cookie value, or the status and message to show. */
export type SignInOutcome =
  | { user: User; device: string }
  | { status: 401 | 429; error: string };

/** What a sign-in attempt carries. */
export interface SignInAttempt {
  email: string;
  password: string;
  /** The browser's device cookie value, if it sent one. */
  device?: string;
}

/**
 * Checks an email and password against a failure budget (see module doc): the budget of
 * the browser when it carries a device cookie of this account, else the account's.
 */
export async function signIn(
  deps: Pick<Deps, "kv" | "now" | "secret">,
  attempt: SignInAttempt,
): Promise<SignInOutcome> {
  const { email, password } = attempt;
  const user = await findUserByEmail(deps, email);
  const device = verifyDevice(deps.secret, attempt.device);
  const trusted = device !== null && user !== null && device.user_id === user.id;
  const key = trusted
    ? keys.deviceSignInFailures(device.id)
    : keys.signInFailures(emailDigest(deps.secret, email));
  const entry = await withKvRetry(() => deps.kv.get<SignInFailures>(key));
  // The hash runs on every path (also when locked) so timing says nothing.
  const ok = email && password ? await passwordMatches(user, password) : false;
  const now = deps.now();
  const locked = entry.value && entry.value.locked_until > now;
  if (locked) return lockedOutcome(entry.value!.locked_until - now, trusted);
  if (ok && user) {
    if (entry.value) await withKvRetry(() => deps.kv.delete(key));
    return { user, device: issueDevice(deps.secret, user.id) };
  }
  const until = await recordFailure(deps, key);
  return until > now
    ? lockedOutcome(until - now, trusted)
    : { status: 401, error: MISMATCH_MESSAGE };
}

/** Adds the deletion of an account's failure budget to `op` (a password reset clears it). */
export function clearSignInFailures(
  op: Deno.AtomicOperation,
  secret: Uint8Array,
  email: string,
): Deno.AtomicOperation {
  return op.delete(keys.signInFailures(emailDigest(secret, email)));
}

/** Counts one failure (retrying on a concurrent write); returns the new lock end (epoch ms). */
async function recordFailure(deps: Pick<Deps, "kv" | "now">, key: Deno.KvKey): Promise<number> {
  return await commitWithRetry(deps.kv, async (op) => {
    const entry = await deps.kv.get<SignInFailures>(key);
    const failures = (entry.value?.failures ?? 0) + 1;
    const now = deps.now();
    const over = failures - FREE_FAILURES;
    const lockMs = over > 0 ? Math.min(MAX_LOCK_MS, FIRST_LOCK_MS * 2 ** (over - 1)) : 0;
    const next: SignInFailures = { failures, locked_until: lockMs ? now + lockMs : 0 };
    op.check(entry).set(key, next, { expireIn: lockMs + FAILURE_MEMORY_MS });
    return next.locked_until;
  }) ?? 0;
}

function lockedOutcome(ms: number, trusted: boolean): SignInOutcome {
  const wait = ms >= 60_000
    ? count(Math.ceil(ms / 60_000), "minute")
    : count(Math.ceil(ms / 1000), "second");
  return {
    status: 429,
    error: trusted
      ? `Too many failed sign-ins from this browser. Wait ${wait} and try again.`
      : `Too many failed sign-ins for this email. Wait ${wait} and try again, sign in ` +
        "from a browser you signed in with before, or reset your password.",
  };
}

/** HMAC-SHA256 (keyed by the instance secret) of the trimmed, lower-cased email, hex. */
export function emailDigest(secret: Uint8Array, email: string): string {
  return hmacSha256Hex(secret, `signin:${normaliseEmail(email)}`);
}

/**
 * What the log says of a failed sign-in: the address masked (first character and domain)
 * with a short keyed digest to correlate attempts, and the client address truncated as the
 * audit log keeps it (IPv4 /24, IPv6 /48). Never the password.
 */
export function failedSignInFields(
  secret: Uint8Array,
  attempt: { email: string; ip: string | null; reason: "mismatch" | "locked" | "rate_limited" },
): Record<string, string | null> {
  return {
    email: maskEmail(attempt.email),
    email_digest: emailDigest(secret, attempt.email).slice(0, 16),
    ip: storedIp("truncated", attempt.ip ?? undefined) ?? null,
    reason: attempt.reason,
  };
}

/** `a***@example.com`: the first character of the local part and the domain. */
function maskEmail(email: string): string {
  const e = normaliseEmail(email);
  const at = e.lastIndexOf("@");
  if (at < 1) return e ? `${e[0]}***` : "";
  return `${e[0]}***${e.slice(at)}`.slice(0, 120);
}
