/**
 * Server-side CAPTCHA verification: Turnstile, hCaptcha and reCAPTCHA (v2 and v3) through
 * their siteverify protocol, ALTCHA locally (protection/altcha.ts). Fails closed: a provider that is
 * down, slow or answers nonsense is a 403 `captcha_invalid`, never a pass.
 * @module
 */
import type { Config } from "@/lib/config.ts";
import type { Deps } from "@/lib/deps.ts";
import { sha256Hex } from "@/lib/ids.ts";
import type { CaptchaConfig, Form } from "@/lib/schemas.ts";
import { altchaDigest, altchaNonce, verifyAltcha } from "./altcha.ts";
import type { CaptchaFail, CaptchaPass, CaptchaResult } from "./types.ts";

export type { CaptchaFail, CaptchaPass, CaptchaResult } from "./types.ts";

/** Siteverify must answer within this (the submit waits for it). */
export const CAPTCHA_TIMEOUT_MS = 5_000;
/** reCAPTCHA v3 default minimum score (Google's suggested starting point). */
export const DEFAULT_MIN_SCORE = 0.5;
/** How long a spent third-party token is remembered (providers' tokens live 2 to 5 min). */
const THIRD_PARTY_TOKEN_TTL_MS = 10 * 60_000;

/** Whether a form's CAPTCHA config asks for a token at all. */
export function captchaRequired(form: Form): boolean {
  return Boolean(form.captcha && form.captcha.provider !== "none");
}

/** Provider error codes caused by our configuration or the provider, not the client. */
const SERVER_SIDE_CODES = new Set([
  "missing-input-secret",
  "invalid-input-secret",
  "sitekey-secret-mismatch",
  "internal-error",
  "bad-request",
  "invalid-keys",
]);

/** Verifies one token for a form. `ip` goes to the provider as `remoteip` when known. */
export async function verifyCaptcha(
  deps: Pick<Deps, "config" | "fetch" | "now" | "secret">,
  form: Form,
  token: string,
  ip: string,
  opts: { timeoutMs?: number } = {},
): Promise<CaptchaResult> {
  const cfg = form.captcha;
  if (!cfg || cfg.provider === "none") return fail("This form has no CAPTCHA.", false);
  if (cfg.provider === "altcha") return await verifyAltcha(deps, form, token);
  const url = deps.config.captchaVerifyUrls[cfg.provider];
  const params = new URLSearchParams({ secret: cfg.secret ?? "", response: token });
  if (ip && ip !== "unknown") params.set("remoteip", ip);
  if (cfg.provider === "hcaptcha" && cfg.siteKey) params.set("sitekey", cfg.siteKey);

  const answer = await postSiteverify(deps, url, params, opts.timeoutMs ?? CAPTCHA_TIMEOUT_MS);
  if (!answer) return fail("The CAPTCHA provider could not be reached. Try again.", false);
  return checkAnswer(cfg, expectedHostnames(form, deps.config), answer, {
    provider: cfg.provider,
    digest: await tokenDigest(cfg.provider, token),
    spentUntil: deps.now() + THIRD_PARTY_TOKEN_TTL_MS,
  });
}

/** The spent-marker digest of a third-party token (ALTCHA uses its challenge nonce). */
export async function tokenDigest(provider: string, token: string): Promise<string> {
  return await sha256Hex(`${provider}:${token}`);
}

/**
 * The digest a token will be spent under, known before verification (for in-process
 * claims); null for an ALTCHA payload too malformed to name its challenge.
 */
export async function claimDigest(form: Form, token: string): Promise<string | null> {
  const provider = form.captcha?.provider ?? "none";
  if (provider !== "altcha") return await tokenDigest(provider, token);
  const nonce = altchaNonce(token);
  return nonce ? await altchaDigest(nonce) : null;
}

/** The fields of a siteverify answer the three providers share. */
interface SiteverifyAnswer {
  success?: unknown;
  "error-codes"?: unknown;
  hostname?: unknown;
  score?: unknown;
  action?: unknown;
}

/** POSTs to siteverify with a hard timeout; null when unreachable, slow or not JSON. */
async function postSiteverify(
  deps: Pick<Deps, "fetch">,
  url: string,
  params: URLSearchParams,
  timeoutMs: number,
): Promise<SiteverifyAnswer | null> {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), timeoutMs);
  try {
    const res = await deps.fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: params.toString(),
      signal: ctrl.signal,
    });
    const text = await res.text();
    if (!res.ok) return null;
    const json = JSON.parse(text);
    return json && typeof json === "object" && !Array.isArray(json) ? json : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** Applies the provider's own verification rules to its answer. */
function checkAnswer(
  cfg: CaptchaConfig,
  hosts: string[],
  answer: SiteverifyAnswer,
  pass: Omit<CaptchaPass, "ok">,
): CaptchaResult {
  const codes = Array.isArray(answer["error-codes"])
    ? answer["error-codes"].filter((c): c is string => typeof c === "string")
    : [];
  if (answer.success !== true) {
    if (codes.some((c) => SERVER_SIDE_CODES.has(c))) {
      return fail("CAPTCHA verification is unavailable for this form.", false);
    }
    const reused = codes.some((c) =>
      c === "timeout-or-duplicate" || c === "already-seen-response" ||
      c === "expired-input-response"
    );
    return fail(
      reused
        ? "The CAPTCHA token expired or was already used. Solve the CAPTCHA again."
        : "CAPTCHA verification failed. Solve the CAPTCHA again.",
      true,
    );
  }
  if (hosts.length) {
    const host = typeof answer.hostname === "string" ? answer.hostname.toLowerCase() : "";
    if (!hosts.includes(host)) {
      return fail("The CAPTCHA was solved on a site this form does not allow.", true);
    }
  }
  const score = typeof answer.score === "number" ? answer.score : undefined;
  const v3 = cfg.provider === "recaptcha" && (cfg.version === "v3" || score !== undefined);
  if (v3) {
    if (score === undefined) return fail("CAPTCHA verification failed.", true);
    if (score < (cfg.minScore ?? DEFAULT_MIN_SCORE)) {
      return fail("CAPTCHA verification failed: the request looks automated.", true);
    }
  }
  if (cfg.action && answer.action !== cfg.action) {
    return fail("CAPTCHA verification failed: unexpected action.", true);
  }
  return { ok: true, ...pass, score: v3 ? score : undefined };
}

/**
 * `captcha.hostnames`, else the hosts of `allowed_origins`; either way plus the service's
 * own host (the hosted page solves the CAPTCHA there). No list means no check.
 */
export function expectedHostnames(
  form: Form,
  config: Pick<Config, "baseUrl" | "publicBaseUrl">,
): string[] {
  const listed = form.captcha?.hostnames?.length
    ? form.captcha.hostnames
    : form.allowed_origins.map((o) => new URL(o).hostname);
  if (!listed.length) return [];
  const own = [new URL(config.baseUrl).hostname, new URL(config.publicBaseUrl).hostname];
  return [...new Set([...listed, ...own].map((h) => h.toLowerCase()))];
}

function fail(reason: string, clientFault: boolean): CaptchaFail {
  return { ok: false, reason, clientFault };
}
