/**
 * Admin sessions: a random cookie value, stored in KV only as its SHA-256 digest, with a
 * server-side expiry checked on every read (KV `expireIn` is lazy) and a per-session CSRF
 * token for the admin's forms. The expiry slides: activity renews it, up to an absolute cap.
 * @module
 */
import { generateCookie } from "hono/cookie";
import { parse } from "hono/utils/cookie";
import type { Config } from "@/lib/config.ts";
import type { Deps } from "@/lib/deps.ts";
import { randomBase62, sha256Hex } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";

/** A session ends this long after its last request (renewed on activity). */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** ... and at the latest this long after sign-in, however active (an admin console). */
export const SESSION_MAX_MS = 3 * 24 * 60 * 60 * 1000;
/** Renewals are written at most this often, so a page view is not a KV write each. */
export const SESSION_RENEW_STEP_MS = 5 * 60 * 1000;
/** Cookie value length: 43 base62 characters, about 256 bits. */
const TOKEN_LENGTH = 43;

/** A stored session. */
export interface Session {
  user_id: string;
  /** Compared with the `_csrf` field of every admin form post. */
  csrf: string;
  /** The workspace the admin is looking at (the switcher). */
  workspace_id: string | null;
  /** Sign-in time; the absolute cap counts from here. */
  created_at: number;
  /** The sliding expiry: the last renewal plus the idle window, capped. */
  expires_at: number;
}

/** Starts a session for a user; returns the raw cookie value (never stored) and the record. */
export async function createSession(
  deps: Pick<Deps, "kv" | "now">,
  userId: string,
  workspaceId: string | null,
): Promise<{ token: string; session: Session }> {
  const token = randomBase62(TOKEN_LENGTH);
  const now = deps.now();
  const session: Session = {
    user_id: userId,
    csrf: randomBase62(32),
    workspace_id: workspaceId,
    created_at: now,
    expires_at: now + SESSION_IDLE_MS,
  };
  const key = keys.session(await sha256Hex(token));
  const res = await withKvRetry(() =>
    deps.kv.atomic().check({ key, versionstamp: null })
      .set(key, session, { expireIn: SESSION_IDLE_MS }).commit()
  );
  if (!res.ok) throw new Error("session token collision");
  return { token, session };
}

/** The live session of a cookie value, or null (unknown, malformed or expired). */
export async function getSession(
  deps: Pick<Deps, "kv" | "now">,
  token: string | undefined,
): Promise<Session | null> {
  if (!token || !/^[0-9A-Za-z]{43}$/.test(token)) return null;
  const key = keys.session(await sha256Hex(token));
  const entry = await withKvRetry(() => deps.kv.get<Session>(key));
  if (!entry.value) return null;
  if (!live(entry.value, deps.now())) {
    await withKvRetry(() => deps.kv.atomic().check(entry).delete(key).commit());
    return null;
  }
  return entry.value;
}

/** Whether a session is within both its sliding expiry and its absolute cap. */
function live(session: Session, now: number): boolean {
  return session.expires_at > now && session.created_at + SESSION_MAX_MS > now;
}

/** The expiry a request at `now` earns: idle window from now, never past the absolute cap. */
function renewedExpiry(session: Session, now: number): number {
  return Math.min(now + SESSION_IDLE_MS, session.created_at + SESSION_MAX_MS);
}

/**
 * Slides a live session's expiry after a request (at most one write per renew step). A lost
 * race with another write (a renewal or a workspace switch) is left alone: the next request
 * renews again. Returns the session as it now stands.
 */
export async function renewSession(
  deps: Pick<Deps, "kv" | "now">,
  token: string,
  session: Session,
): Promise<Session> {
  const now = deps.now();
  if (renewedExpiry(session, now) - session.expires_at < SESSION_RENEW_STEP_MS) return session;
  const key = keys.session(await sha256Hex(token));
  const entry = await withKvRetry(() => deps.kv.get<Session>(key));
  if (!entry.value || !live(entry.value, now)) return session;
  const next = { ...entry.value, expires_at: renewedExpiry(entry.value, now) };
  const res = await withKvRetry(() =>
    deps.kv.atomic().check(entry).set(key, next, { expireIn: next.expires_at - now }).commit()
  );
  return res.ok ? next : session;
}

/** Ends a session (sign-out). Unknown tokens are ignored. */
export async function deleteSession(deps: Pick<Deps, "kv">, token: string | undefined) {
  if (!token || !/^[0-9A-Za-z]{43}$/.test(token)) return;
  const key = keys.session(await sha256Hex(token));
  await withKvRetry(() => deps.kv.delete(key));
}

/** Points a session at another workspace; false when the session is gone. */
export async function setSessionWorkspace(
  deps: Pick<Deps, "kv" | "now">,
  token: string,
  workspaceId: string,
): Promise<boolean> {
  const key = keys.session(await sha256Hex(token));
  const done = await commitWithRetry(deps.kv, async (op) => {
    const entry = await withKvRetry(() => deps.kv.get<Session>(key));
    if (!entry.value || !live(entry.value, deps.now())) return null;
    const next = { ...entry.value, workspace_id: workspaceId };
    op.check(entry).set(key, next, { expireIn: Math.max(1, next.expires_at - deps.now()) });
    return true;
  }, 10);
  return done !== null;
}

/** Constant-time comparison of a posted CSRF token with the session's. */
export function csrfMatches(session: Session, posted: unknown): boolean {
  if (typeof posted !== "string" || posted.length !== session.csrf.length) return false;
  let diff = 0;
  for (let i = 0; i < posted.length; i++) {
    diff |= posted.charCodeAt(i) ^ session.csrf.charCodeAt(i);
  }
  return diff === 0;
}

/** Whether the service is served over HTTPS (then cookies are `Secure` and `__Host-`). */
function secure(config: Pick<Config, "baseUrl">): boolean {
  return config.baseUrl.startsWith("https:");
}

/**
 * An admin cookie's name: `__Host-` on HTTPS (browsers then insist on Secure, Path=/ and
 * no Domain, so no subdomain can plant or read it), the plain name on plain HTTP where
 * browsers refuse the prefix.
 */
export function adminCookieName(config: Pick<Config, "baseUrl">, name: string): string {
  return secure(config) ? `__Host-${name}` : name;
}

/**
 * The `Set-Cookie` value of an admin cookie (`value` null clears it): Path=/, HttpOnly,
 * SameSite=Lax, Secure on HTTPS.
 */
export function adminCookie(
  config: Pick<Config, "baseUrl">,
  name: string,
  value: string | null,
  maxAgeMs: number,
): string {
  return generateCookie(name, value ?? "", {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    maxAge: value ? Math.floor(maxAgeMs / 1000) : 0,
    secure: secure(config),
    prefix: secure(config) ? "host" : undefined,
  });
}

/** The session cookie's name (see {@linkcode adminCookieName}). */
export function sessionCookieName(config: Pick<Config, "baseUrl">): string {
  return adminCookieName(config, "formwell_session");
}

/** The `Set-Cookie` value that stores a session token (or clears it with `token` null). */
export function sessionCookie(config: Pick<Config, "baseUrl">, token: string | null): string {
  // The cookie may outlive the session; the server-side expiry is what counts.
  return adminCookie(config, "formwell_session", token, SESSION_MAX_MS);
}

/** The session token in a `Cookie` header, if any. */
export function readSessionToken(
  config: Pick<Config, "baseUrl">,
  cookieHeader: string | null | undefined,
): string | undefined {
  return readAdminCookie(config, "formwell_session", cookieHeader);
}

/** The value of the admin cookie `name` (see {@linkcode adminCookieName}) in a `Cookie` header. */
export function readAdminCookie(
  config: Pick<Config, "baseUrl">,
  name: string,
  cookieHeader: string | null | undefined,
): string | undefined {
  if (!cookieHeader) return undefined;
  const full = adminCookieName(config, name);
  return parse(cookieHeader, full)[full];
}
