/**
 * The shape of a raw API key: `fw_live_`/`fw_test_`, 32 random base62 characters and a
 * CRC32 checksum, so a typo or a fake is refused without a lookup.
 * @module
 */
import { toBase62 } from "@/lib/ids.ts";

/** Random base62 characters of a key. */
export const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^fw_(live|test)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC32 of ASCII text (a key's characters are ASCII by KEY_PATTERN: no encoding step). */
function crc32(text: string): number {
  let c = 0xffffffff;
  for (let i = 0; i < text.length; i++) {
    c = CRC_TABLE[(c ^ text.charCodeAt(i)) & 0xff] ^ (c >>> 8);
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** The 6-character base62 CRC32 that ends a key of `type` with `random`. */
export function checksum(type: string, random: string): string {
  return toBase62(BigInt(crc32(`fw_${type}_${random}`)), CHECKSUM_LENGTH);
}

/** Whether a string has the shape and checksum of a Formwell key (no lookup). */
export function isWellFormedKey(raw: string): boolean {
  const m = KEY_PATTERN.exec(raw);
  return m !== null && checksum(m[1], m[2]) === m[3];
}

/**
 * The displayable prefix of a raw key: type prefix plus four characters. Only four, so
 * the 28 never-shown characters still carry over 160 bits (base62: 5.95 bits each).
 */
export function keyPrefix(raw: string): string {
  return raw.slice(0, "fw_live_".length + 4);
}
