/**
 * Password hashing with WebCrypto PBKDF2-HMAC-SHA256 at OWASP's 600,000 iterations.
 * Stored as `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`.
 * @module
 */

/** OWASP Password Storage Cheat Sheet (2023+) for PBKDF2-HMAC-SHA256. */
export const PBKDF2_ITERATIONS = 600_000;

function b64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function unb64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(password),
    "PBKDF2",
    false,
    [
      "deriveBits",
    ],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as BufferSource, iterations },
    key,
    256,
  );
  return new Uint8Array(bits);
}

/** Hashes a password with a fresh 16-byte salt. */
export async function hashPassword(
  password: string,
  iterations = PBKDF2_ITERATIONS,
): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  return `pbkdf2-sha256$${iterations}$${b64(salt)}$${
    b64(await derive(password, salt, iterations))
  }`;
}

/** Verifies a password in constant time against a stored hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iter, salt, hash] = stored.split("$");
  if (scheme !== "pbkdf2-sha256" || !iter || !salt || !hash) return false;
  const actual = await derive(password, unb64(salt), Number(iter));
  const expected = unb64(hash);
  if (actual.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < actual.length; i++) diff |= actual[i] ^ expected[i];
  return diff === 0;
}

/** Longest accepted password (PBKDF2 hashes any length; this only bounds the work). */
export const MAX_PASSWORD_LENGTH = 1000;

/** Why a new password is refused, in words, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < 8) return "The password needs at least 8 characters.";
  if (password.length > MAX_PASSWORD_LENGTH) {
    return `The password can have at most ${MAX_PASSWORD_LENGTH} characters.`;
  }
  return null;
}
