/**
 * Idempotency-Key handling: records kept 24 h per form and mode; the same key with the
 * same payload (compared canonically) replays the original 201, a different payload is
 * 409 `idempotency_key_reused`.
 * @module
 */
import { canonicalJson } from "@/lib/canonical.ts";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { sha256Hex } from "@/lib/ids.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { CreatedBody } from "./types.ts";

/** How long a key's result is kept. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** What is stored under an Idempotency-Key. */
export interface IdempotencyRecord {
  hash: string;
  body: CreatedBody;
  /** Own expiry check: KV's `expireIn` is lazy. */
  expires_at: number;
}

/** Printable ASCII, 1..255 characters (Stripe allows 255). */
export function parseIdempotencyKey(header: string | undefined | null): string | undefined {
  if (header === undefined || header === null) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(header)) {
    throw errors.badRequest("Idempotency-Key must be 1 to 255 printable ASCII characters.");
  }
  return header;
}

/**
 * The digest the replay compares: the submitted `data` and `metadata`, canonically.
 * CAPTCHA tokens and the schema version are not part of it, so a retry that carries a
 * fresh token still replays.
 */
export async function payloadHash(data: unknown, metadata: unknown): Promise<string> {
  return await sha256Hex(canonicalJson({ data, metadata: metadata ?? {} }));
}

/** The stored body when `hash` matches; 409 otherwise. */
export function replayOrConflict(rec: IdempotencyRecord, hash: string): CreatedBody {
  if (rec.hash !== hash) throw errors.idempotencyReused();
  return rec.body;
}

/** A live stored result for a key, or null (used before any gate so retries replay). */
export async function findReplay(
  deps: Pick<Deps, "kv" | "now">,
  formId: string,
  mode: Mode,
  key: string,
  hash: string,
): Promise<CreatedBody | null> {
  const rec =
    (await withKvRetry(() => deps.kv.get<IdempotencyRecord>(keys.idempotency(formId, mode, key))))
      .value;
  if (!rec || rec.expires_at <= deps.now()) return null;
  return replayOrConflict(rec, hash);
}
