/**
 * What an endpoint's answer means for the delivery: delivered, rate limited (retried when
 * the service asked, not counted as a failure), retry (on the failure schedule), failed
 * for good (this message only) or disable the endpoint (it can never work as set up). The
 * standard format's rule is here too: 2xx delivered, a rate limit waits, 410 disables,
 * anything else is retried.
 * @module
 */
import type { PostResult } from "../http1.ts";

/** How a delivery attempt ended, as the delivery log and the retry schedule see it. */
export type Answer =
  | { kind: "delivered" }
  | { kind: "rate_limited"; afterMs?: number }
  | { kind: "retry" }
  | { kind: "failed"; why: string }
  | { kind: "disable"; reason: string };

/** The longest wait a service's `Retry-After` or `retry_after` may ask for: 1 hour. */
export const MAX_RETRY_AFTER_MS = 3600 * 1000;
/** The shortest wait after a rate-limit answer, whatever it asked: 1 second. */
export const MIN_RETRY_AFTER_MS = 1000;

/**
 * A rate-limit answer, if `r` is one: `429`, or `503` with `Retry-After`; it waits what
 * `asked` says (a service's own body field), else the `Retry-After` header, if anything.
 */
export function rateLimitOf(r: PostResult, now: number, asked?: number): Answer | null {
  const header = retryAfterMs(r, now);
  if (r.status !== 429 && !(r.status === 503 && header !== undefined)) return null;
  return { kind: "rate_limited", afterMs: asked ?? header };
}

/** Milliseconds from seconds (a number, or a decimal string), capped; undefined if not one. */
export function secondsToMs(v: unknown): number | undefined {
  const n = typeof v === "number"
    ? v
    : typeof v === "string" && /^\d+(\.\d+)?$/.test(v.trim())
    ? Number(v)
    : NaN;
  return Number.isFinite(n) && n >= 0
    ? Math.min(Math.ceil(n * 1000), MAX_RETRY_AFTER_MS)
    : undefined;
}

/** The wait a `Retry-After` header asks for (seconds or an HTTP date), capped; undefined if none. */
export function retryAfterMs(r: PostResult, now: number): number | undefined {
  const v = r.headers["retry-after"];
  if (!v) return undefined;
  const secs = secondsToMs(v);
  if (secs !== undefined) return secs;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS) : undefined;
}

/** Whether a status is a success. */
export function is2xx(status: number): boolean {
  return status >= 200 && status < 300;
}

/**
 * The standard format's rule: 2xx delivered, a rate limit waits, 410 Gone disables, the
 * rest is retried.
 */
export function standardAnswer(r: PostResult, now: number): Answer {
  if (is2xx(r.status)) return { kind: "delivered" };
  const limited = rateLimitOf(r, now);
  if (limited) return limited;
  if (r.status === 410) return { kind: "disable", reason: "The endpoint answered 410 Gone." };
  return { kind: "retry" };
}

/** The first line of a response body, printable and short: what a reason quotes of it. */
export function quote(body: string, max = 120): string {
  const line = body.trim().split(/\r?\n/)[0] ?? "";
  // deno-lint-ignore no-control-regex
  const clean = line.replace(/[\u0000-\u001f\u007f]/g, " ");
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}
