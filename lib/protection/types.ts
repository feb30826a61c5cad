/**
 * Shared types of the protection layer: the outcome of verifying a CAPTCHA token, whatever
 * the provider (captcha.ts for siteverify providers, altcha.ts for ALTCHA), and the failure
 * records a process keeps (failures.ts).
 * @module
 */

/** A verified token: what to record, and the digest that marks it spent. */
export interface CaptchaPass {
  ok: true;
  provider: string;
  score?: number;
  /** Identifies the token (or ALTCHA challenge) so it is accepted only once. */
  digest: string;
  /** Until when the spent marker must be kept. */
  spentUntil: number;
}

/** A refused token; `clientFault` is false when the provider or our config failed. */
export interface CaptchaFail {
  ok: false;
  reason: string;
  clientFault: boolean;
}

/** The outcome of verifying one token. */
export type CaptchaResult = CaptchaPass | CaptchaFail;

/** Stored per identity: failure times (ms), oldest first (see failures.ts). */
export interface FailureRecord {
  times: number[];
}

/**
 * Failure records by identity as this process last read or wrote them (null: none), kept a
 * few seconds (a TtlCache in every process).
 */
export interface KnownFailures {
  get(identity: string): FailureRecord | null | undefined;
  set(identity: string, record: FailureRecord | null): void;
  delete(identity: string): void;
}
