/**
 * The event feed's cursor: a position in one workspace and mode's feed, signed with the
 * instance secret so it survives restarts and cannot be edited or moved to another
 * workspace. Opaque to clients: `base64url(json).hmac`.
 * @module
 */
import { errors } from "@/lib/errors.ts";
import { hmacSha256Hex } from "@/lib/hmac.ts";
import type { Mode } from "@/lib/kv/keys.ts";

/** Longest cursor accepted (a real one is under 150 characters). */
export const MAX_CURSOR_LENGTH = 512;

/** What a cursor names: a workspace and mode's feed, and the last position read. */
export interface FeedPosition {
  workspaceId: string;
  mode: Mode;
  seq: number;
}

function sign(secret: Uint8Array, payload: string): string {
  return hmacSha256Hex(secret, `feed-cursor:${payload}`).slice(0, 32);
}

function base64url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

function fromBase64url(text: string): string {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - b64.length % 4) % 4));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

/** The cursor of a position. */
export function encodeCursor(secret: Uint8Array, p: FeedPosition): string {
  const payload = base64url(JSON.stringify({ v: 1, w: p.workspaceId, m: p.mode, s: p.seq }));
  return `${payload}.${sign(secret, payload)}`;
}

/**
 * The position a cursor names, for the caller's workspace and mode; anything else (edited,
 * truncated, another workspace's or mode's) is a 400.
 */
export function decodeCursor(
  secret: Uint8Array,
  cursor: string,
  expect: { workspaceId: string; mode: Mode },
): number {
  const bad = () =>
    errors.badRequest(
      "Invalid query parameter 'after': pass a next_cursor this feed returned, unchanged.",
    );
  if (cursor.length > MAX_CURSOR_LENGTH) throw bad();
  const [payload, mac, ...rest] = cursor.split(".");
  if (rest.length || !payload || !mac || !/^[A-Za-z0-9_-]+$/.test(payload)) throw bad();
  if (!timingSafeEqual(mac, sign(secret, payload))) throw bad();
  let v: { v?: unknown; w?: unknown; m?: unknown; s?: unknown };
  try {
    v = JSON.parse(fromBase64url(payload));
  } catch {
    throw bad();
  }
  if (v.v !== 1 || v.w !== expect.workspaceId || v.m !== expect.mode) throw bad();
  if (typeof v.s !== "number" || !Number.isSafeInteger(v.s) || v.s < 0) throw bad();
  return v.s;
}

function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
