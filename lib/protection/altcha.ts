/**
 * ALTCHA, self-hosted proof of work (npm `altcha-lib`, v2 protocol): the service signs a
 * challenge bound to one form, the browser finds the counter, the submit carries the
 * base64 JSON payload `{challenge, solution}`. Needs no third party.
 * @module
 */
import { createChallenge, randomInt, verifySolution } from "altcha-lib";
import type { Challenge } from "altcha-lib/types";
import { deriveKey } from "altcha-lib/algorithms/sha";
import type { Deps } from "@/lib/deps.ts";
import type { CaptchaResult } from "./types.ts";
import { sha256Hex } from "@/lib/ids.ts";
import type { Form } from "@/lib/schemas.ts";

/** How long a challenge may be solved and submitted (a person fills the form meanwhile). */
export const ALTCHA_TTL_MS = 20 * 60_000;
/** Key derivation the browser repeats: one SHA-256 per counter value. */
const ALGORITHM = "SHA-256";
/** Counter range: on average ~50k hashes, well under a second in a browser. */
const MIN_COUNTER = 5_000;
const MAX_COUNTER = 100_000;

/** The two HMAC secrets, derived from the instance secret so every instance agrees. */
async function secrets(secret: Uint8Array): Promise<{ signature: string; key: string }> {
  const hex = new TextDecoder().decode(secret);
  return {
    signature: await sha256Hex(`altcha-signature:${hex}`),
    key: await sha256Hex(`altcha-key-signature:${hex}`),
  };
}

/** A signed challenge for one form (the widget's `challengeurl` answer). */
export async function createAltchaChallenge(
  deps: Pick<Deps, "secret" | "now">,
  form: Form,
): Promise<Challenge> {
  const s = await secrets(deps.secret);
  return await createChallenge({
    algorithm: ALGORITHM,
    cost: 1,
    counter: randomInt(MIN_COUNTER, MAX_COUNTER),
    deriveKey,
    data: { form: form.id },
    expiresAt: Math.floor((deps.now() + ALTCHA_TTL_MS) / 1000),
    hmacSignatureSecret: s.signature,
    hmacKeySignatureSecret: s.key,
  });
}

/** Verifies an ALTCHA payload for a form; the challenge nonce identifies it for single use. */
export async function verifyAltcha(
  deps: Pick<Deps, "secret" | "now">,
  form: Form,
  token: string,
): Promise<CaptchaResult> {
  const payload = parsePayload(token);
  if (!payload) return { ok: false, reason: "The ALTCHA payload is malformed.", clientFault: true };
  const params = payload.challenge.parameters;
  if (params.data?.form !== form.id || params.algorithm !== ALGORITHM) {
    return { ok: false, reason: "This ALTCHA challenge is for another form.", clientFault: true };
  }
  const expiresAt = (params.expiresAt ?? 0) * 1000;
  if (expiresAt <= deps.now()) {
    return {
      ok: false,
      reason: "The ALTCHA challenge expired. Solve it again.",
      clientFault: true,
    };
  }
  const s = await secrets(deps.secret);
  let verified = false;
  try {
    const result = await verifySolution({
      challenge: payload.challenge,
      solution: payload.solution,
      deriveKey,
      hmacSignatureSecret: s.signature,
      hmacKeySignatureSecret: s.key,
    });
    verified = result.verified;
  } catch {
    verified = false;
  }
  if (!verified) {
    return { ok: false, reason: "ALTCHA verification failed. Solve it again.", clientFault: true };
  }
  return {
    ok: true,
    provider: "altcha",
    digest: await altchaDigest(params.nonce),
    spentUntil: expiresAt,
  };
}

/** The spent-marker digest of a challenge. */
export async function altchaDigest(nonce: string): Promise<string> {
  return await sha256Hex(`altcha:${nonce}`);
}

/** The challenge nonce a payload names (unverified), or null. */
export function altchaNonce(token: string): string | null {
  return parsePayload(token)?.challenge.parameters.nonce ?? null;
}

/** Decodes the widget's base64 JSON payload; null unless it has the v2 shape. */
function parsePayload(
  token: string,
): { challenge: Challenge; solution: { counter: number; derivedKey: string } } | null {
  try {
    const p = JSON.parse(atob(token));
    const c = p?.challenge;
    const sol = p?.solution;
    if (
      !c || typeof c !== "object" || typeof c.signature !== "string" ||
      !c.parameters || typeof c.parameters !== "object" ||
      typeof c.parameters.nonce !== "string" || !sol || typeof sol !== "object" ||
      !Number.isInteger(sol.counter) || typeof sol.derivedKey !== "string"
    ) return null;
    return { challenge: c, solution: { counter: sol.counter, derivedKey: sol.derivedKey } };
  } catch {
    return null;
  }
}
