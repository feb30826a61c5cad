/**
 * Resume tokens: `<draft id>.<40 random base62 characters>`, so a link carrying only the
 * token finds its draft. Only the SHA-256 of a token is stored; a presented token is
 * compared with it in constant time.
 * @module
 */
import { Buffer } from "node:buffer";
import { createHash, timingSafeEqual } from "node:crypto";
import { newId, randomBase62 } from "@/lib/ids.ts";

const TOKEN = /^(drf_[0-9a-z]{26})\.([0-9A-Za-z]{40})$/;

/** A new draft id and its resume token. */
export function newDraftToken(): { id: string; token: string } {
  const id = newId("drf");
  return { id, token: `${id}.${randomBase62(40)}` };
}

/** The stored digest of a token (hex SHA-256). */
export function tokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The draft id a token names, or null when it is not a token's shape. */
export function draftIdOfToken(token: string): string | null {
  return TOKEN.exec(token)?.[1] ?? null;
}

/** Whether `token` is the one whose digest is `digest` (constant time over the digests). */
export function tokenMatches(token: string, digest: string): boolean {
  const a = Buffer.from(tokenDigest(token), "hex");
  const b = Buffer.from(digest, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | undefined | null): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return m ? m[1] : null;
}
