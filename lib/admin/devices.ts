/**
 * Device cookies (OWASP "Slow Down Online Guessing Attacks with Device Cookies"): a browser
 * that signed in successfully carries `<user id>.<nonce>.<HMAC>`, signed with the instance
 * secret. Sign-in from such a browser, for that user, is exempt from the account's lockout
 * and gets a throttle of its own (lib/admin/signin.ts), so strangers' failures cannot lock
 * out a known browser.
 * @module
 */
import { timingSafeEqual } from "node:crypto";
import type { Config } from "@/lib/config.ts";
import { hmacSha256Hex } from "@/lib/hmac.ts";
import { randomBase62 } from "@/lib/ids.ts";
import { adminCookie, readAdminCookie } from "./sessions.ts";

/** The device cookie's name before the `__Host-` prefix HTTPS adds. */
const NAME = "formwell_device";
/** A device cookie lasts a year; each sign-in from the browser issues a fresh one. */
export const DEVICE_COOKIE_MS = 365 * 24 * 60 * 60 * 1000;
const VALUE = /^([A-Za-z0-9_]{1,64})\.([0-9A-Za-z]{22})\.([0-9a-f]{64})$/;

/** A verified device cookie: whose it is and the id its throttle is kept under. */
export interface Device {
  user_id: string;
  /** An HMAC of the nonce (KV keys hold this, never the cookie's parts). */
  id: string;
}

function signature(secret: Uint8Array, userId: string, nonce: string): string {
  return hmacSha256Hex(secret, `device:${userId}.${nonce}`);
}

/** A fresh device cookie value for `userId`. */
export function issueDevice(secret: Uint8Array, userId: string): string {
  const nonce = randomBase62(22);
  return `${userId}.${nonce}.${signature(secret, userId, nonce)}`;
}

/** The device a cookie value stands for, or null (missing, malformed or not signed by us). */
export function verifyDevice(secret: Uint8Array, value: string | undefined): Device | null {
  const m = VALUE.exec(value ?? "");
  if (!m) return null;
  const [, userId, nonce, sig] = m;
  const expected = signature(secret, userId, nonce);
  if (!timingSafeEqual(new TextEncoder().encode(sig), new TextEncoder().encode(expected))) {
    return null;
  }
  return { user_id: userId, id: hmacSha256Hex(secret, `device-id:${nonce}`) };
}

/** The device cookie's value in a `Cookie` header, if any. */
export function readDeviceCookie(
  config: Pick<Config, "baseUrl">,
  cookieHeader: string | null | undefined,
): string | undefined {
  return readAdminCookie(config, NAME, cookieHeader);
}

/** The `Set-Cookie` value that stores a device cookie (HttpOnly, SameSite=Lax, a year). */
export function deviceCookie(config: Pick<Config, "baseUrl">, value: string): string {
  return adminCookie(config, NAME, value, DEVICE_COOKIE_MS);
}
