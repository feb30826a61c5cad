/**
 * The submit-time gates of the protection layer, called by the screen and admit stages of
 * lib/submissions/: origin allowlist, repeat-offender block, honeypot, and the CAPTCHA gate
 * whose token is marked spent inside the submission's own commit (a commit part), so no
 * token is ever accepted twice, even by two processes.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { captchaRequired, claimDigest, verifyCaptcha } from "./captcha.ts";
import { originAllowed } from "@/lib/http/cors.ts";
import { FAILURE_BLOCK_AT, failureCount, recordFailure } from "./failures.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { Form, SubmissionSignals } from "@/lib/schemas.ts";
import type { CommitPart, CreatedBody, SubmitContext } from "@/lib/submissions/types.ts";

/** Stored under `keys.spentCaptcha`: our own expiry (KV expiry is lazy). */
interface SpentMarker {
  expires_at: number;
}

/** Refuses a browser request from an origin outside the form's allowlist (key calls skip). */
export function checkOrigin(deps: Pick<Deps, "config">, form: Form, ctx: SubmitContext): void {
  if (ctx.auth || ctx.origin === null) return;
  if (!originAllowed(form, ctx.origin, deps.config)) throw errors.originNotAllowed();
}

/**
 * Blocks a repeat offender and a filled honeypot, the form's own or a conventional one a
 * form post filled (`ctx.trapped`): 403 spam, nothing stored; a honeypot counts as a failure. Returns the identity's failures in the window, a scoring signal:
 * `known` when the caller read them with its other keys (submit does), else read here.
 */
export async function screenSubmit(
  deps: Pick<Deps, "kv" | "now" | "knownFailures">,
  ctx: SubmitContext,
  form: Form,
  data: Record<string, unknown>,
  known?: number,
): Promise<number> {
  const failures = ctx.auth ? 0 : known ?? await failureCount(deps, ctx.identity);
  if (failures >= FAILURE_BLOCK_AT) throw errors.spam();
  if ((form.honeypot && filled(data[form.honeypot])) || ctx.trapped) {
    if (!ctx.auth) await recordFailure(deps, ctx.identity);
    throw errors.spam();
  }
  return failures;
}

function filled(v: unknown): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (typeof v === "string") return v.trim() !== "";
  return !(Array.isArray(v) && v.length === 0);
}

/** What the CAPTCHA gate lets through: the signal to keep and the spent-token part. */
export interface CaptchaGate {
  captcha?: SubmissionSignals["captcha"];
  parts: CommitPart[];
  /** Call once the submission's write settled (frees the in-process claim). */
  release: () => void;
  /** Set when an idempotent retry found its original result instead. */
  replay?: CreatedBody;
}

/**
 * The CAPTCHA gate: skipped with a `submit`-scoped key or when the form has none; a
 * missing token is 403 `captcha_required`, a refused one 403 `captcha_invalid`. A retry
 * carrying the same Idempotency-Key whose token was spent by its original replays it.
 */
export async function captchaGate(
  deps: Deps,
  ctx: SubmitContext,
  form: Form,
  token: string | undefined,
  replay: () => Promise<CreatedBody | null>,
): Promise<CaptchaGate> {
  const open: CaptchaGate = { parts: [], release: () => {} };
  if (ctx.auth || !captchaRequired(form)) return open;
  if (!token) throw errors.captchaRequired();
  const reused = () =>
    errors.captchaInvalid("This CAPTCHA token was already used. Solve the CAPTCHA again.");
  // Claim the token in this process before asking anyone: a concurrent request with the
  // same token waits for the first one's write, then replays it or is refused.
  const inflight = deps.inflight.captchaClaims;
  const claimId = await claimDigest(form, token);
  const prior = claimId ? inflight.get(claimId) : undefined;
  if (prior) {
    await prior;
    const original = ctx.idempotencyKey ? await replay() : null;
    if (original) return { ...open, replay: original };
    throw reused();
  }
  let settle = () => {};
  if (claimId) inflight.set(claimId, new Promise<void>((r) => settle = r));
  const release = () => {
    if (claimId) inflight.delete(claimId);
    settle();
  };
  try {
    const result = await verifyCaptcha(deps, form, token, ctx.ip);
    const key = result.ok ? keys.spentCaptcha(result.digest) : null;
    const spent = key ? await withKvRetry(() => deps.kv.get<SpentMarker>(key)) : null;
    if (!result.ok || (spent?.value && spent.value.expires_at > deps.now())) {
      // A provider refuses a token it saw before: an idempotent retry of a submit that
      // spent it replays the original instead.
      const original = ctx.idempotencyKey ? await replay() : null;
      release();
      if (original) return { ...open, replay: original };
      if (result.ok) throw reused();
      if (result.clientFault) await recordFailure(deps, ctx.identity);
      throw errors.captchaInvalid(result.reason);
    }
    const spentUntil = result.spentUntil;
    // The first attempt checks the marker as read above; a retry reads it again.
    let read: Deno.KvEntryMaybe<SpentMarker> | null = spent;
    const part: CommitPart = {
      checks: 1,
      apply: async (op) => {
        const entry = read ?? await withKvRetry(() => deps.kv.get<SpentMarker>(key!));
        read = null;
        const now = deps.now();
        if (entry.value && entry.value.expires_at > now) throw reused();
        op.check(entry).set(key!, { expires_at: spentUntil } satisfies SpentMarker, {
          expireIn: Math.max(1_000, spentUntil - now),
        });
      },
    };
    return {
      captcha: { provider: result.provider, score: result.score },
      parts: [part],
      release,
    };
  } catch (err) {
    release();
    throw err;
  }
}
