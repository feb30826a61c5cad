/**
 * `verifyWebhook`: checks a Formwell webhook delivery as the Standard Webhooks spec signs
 * it (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">`, keyed by the base64 part of the `whsec_` secret), with WebCrypto
 * only, a constant-time comparison and a timestamp tolerance (5 minutes by default).
 * @module
 */
import { FormwellError } from "../errors.ts";
import type { WebhookEvent } from "../types.ts";

/** Options of `verifyWebhook`. */
export interface VerifyOptions {
  /** Seconds a delivery's timestamp may differ from now (default 300). */
  toleranceSec?: number;
  /** The current time in ms (tests). */
  now?: number;
}

const enc = new TextEncoder();

function base64Bytes(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64);
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** Equal bytes, compared in time that depends only on the lengths. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) {
    diff |= a[i] ^ (b[i % (b.length || 1)] ?? 0);
  }
  return diff === 0;
}

function header(
  headers: Headers | Record<string, string | undefined>,
  name: string,
): string {
  const v = headers instanceof Headers
    ? headers.get(name)
    : Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  if (!v) {
    throw new FormwellError(
      400,
      "webhook_headers_missing",
      `Missing ${name} header.`,
    );
  }
  return v;
}

function bodyBytes(body: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof body === "string") return enc.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

/**
 * Verifies a delivery against `secret` (or any of several, while one is rotated) and
 * returns its parsed event; throws a `FormwellError` (status 400) when it does not verify.
 * Pass the raw body exactly as received.
 */
export async function verifyWebhook(
  headers: Headers | Record<string, string | undefined>,
  body: string | Uint8Array | ArrayBuffer,
  secret: string | string[],
  opts: VerifyOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature").split(" ");
  const ts = Number(timestamp);
  const now = (opts.now ?? Date.now()) / 1000;
  if (
    !/^\d+$/.test(timestamp) || Math.abs(now - ts) > (opts.toleranceSec ?? 300)
  ) {
    throw new FormwellError(
      400,
      "webhook_timestamp",
      "The webhook timestamp is too old or new.",
    );
  }
  const raw = bodyBytes(body);
  const prefix = enc.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + raw.length);
  signed.set(prefix);
  signed.set(raw, prefix.length);
  for (const s of Array.isArray(secret) ? secret : [secret]) {
    const key = await crypto.subtle.importKey(
      "raw",
      base64Bytes(s.replace(/^whsec_/, "")),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, signed));
    for (const sig of signatures) {
      const [version, value] = sig.split(",");
      let given: Uint8Array;
      try {
        given = base64Bytes(value ?? "");
      } catch {
        continue;
      }
      if (version === "v1" && sameBytes(mac, given)) {
        return JSON.parse(new TextDecoder().decode(raw)) as WebhookEvent;
      }
    }
  }
  throw new FormwellError(
    400,
    "webhook_signature",
    "The webhook signature does not match.",
  );
}
