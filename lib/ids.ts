/**
 * Identifiers: time-sortable ULIDs with a type prefix, and random base62 strings.
 * @module
 */
import { createHash } from "node:crypto";
import { monotonicFactory, ulid } from "ulid";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A time-sortable id such as `sub_01J...`; sorts by creation time within one process. */
export function newId(
  prefix:
    | "ws"
    | "sub"
    | "key"
    | "usr"
    | "job"
    | "upl"
    | "whk"
    | "msg"
    | "evt"
    | "dlv"
    | "mail"
    | "chn"
    | "drf",
): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}

/** A submission id that sorts at time `ms` (an imported submission's original time). */
export function submissionIdAt(ms: number): string {
  return `sub_${ulid(ms, randomFraction).toLowerCase()}`;
}

/** Random bytes drawn from the CSPRNG in blocks, so short ids cost no call each. */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  return pool[poolAt++];
}

/**
 * A uniform fraction in [0, 1) in 256 steps from the pooled CSPRNG: the ULIDs' source (the
 * library's own calls the CSPRNG once a character).
 */
function randomFraction(): number {
  return randomByte() / 256;
}

const nextUlid = monotonicFactory(randomFraction);

/** `length` characters of uniform base62 randomness (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const b = randomByte();
    if (b < 248) out += BASE62[b % 62];
  }
  return out;
}

/** A form's public id: `f` + 12 base62 characters (about 71 bits, unguessable). */
export function newFormId(): string {
  return `f${randomBase62(12)}`;
}

/** Encodes a non-negative integer in base62, left-padded with zeros to `width`. */
export function toBase62(n: bigint, width: number): string {
  let out = "";
  let v = n;
  while (v > 0n) {
    out = BASE62[Number(v % 62n)] + out;
    v /= 62n;
  }
  return out.padStart(width, "0");
}

/**
 * SHA-256 of a string as lowercase hex. Synchronous node:crypto under an async signature:
 * WebCrypto's `digest` hops to another thread, which costs more than hashing a short string
 * on the hot submit path.
 */
export function sha256Hex(text: string): Promise<string> {
  return Promise.resolve(createHash("sha256").update(text).digest("hex"));
}
