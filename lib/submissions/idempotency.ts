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
import type { CreatedBody, SubmissionDraft, WriteOutcome } from "./types.ts";

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

/** The KV key of a draft's idempotency record. */
export function idempotencyKeyOf(d: SubmissionDraft): Deno.KvKey {
  return keys.idempotency(d.form.id, d.mode, d.idempotency!.key);
}

/**
 * Resolves queued drafts whose Idempotency-Key already has a live stored result, given
 * what was read (`read`, by JSON-encoded key; an expired one still lingering, KV expiry
 * being lazy, counts as none); returns the rest.
 */
export function settleIdempotent<
  T extends {
    draft: SubmissionDraft;
    resolve: (o: WriteOutcome) => void;
    reject: (e: unknown) => void;
  },
>(items: T[], read: ReadonlyMap<string, Deno.KvEntryMaybe<unknown>>, now: number): T[] {
  return items.filter((item) => {
    if (!item.draft.idempotency) return true;
    const entry = read.get(JSON.stringify(idempotencyKeyOf(item.draft))) as
      | Deno.KvEntryMaybe<IdempotencyRecord>
      | undefined;
    const rec = entry?.value;
    if (!rec || rec.expires_at <= now) return true;
    try {
      item.resolve({ replayed: true, body: replayOrConflict(rec, item.draft.idempotency!.hash) });
    } catch (err) {
      item.reject(err);
    }
    return false;
  });
}

/**
 * Writes a stored submission's result under its draft's Idempotency-Key. No check of its
 * own: records of a form and mode are written only by submission commits, which all check
 * the form's sequence, so a record written since the read fails the commit and the retry
 * replays it.
 */
export function writeIdempotency(
  op: Deno.AtomicOperation,
  d: SubmissionDraft,
  body: CreatedBody,
  now: number,
): void {
  if (!d.idempotency) return;
  const rec: IdempotencyRecord = {
    hash: d.idempotency.hash,
    body,
    expires_at: now + IDEMPOTENCY_TTL_MS,
  };
  op.set(idempotencyKeyOf(d), rec, { expireIn: IDEMPOTENCY_TTL_MS });
}
