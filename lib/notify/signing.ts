/**
 * Standard Webhooks signing of a standard-format delivery: the `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` headers (one signature per secret that signs
 * now).
 * @module
 */
import { Webhook as Signer } from "standardwebhooks";
import { signingSecrets, type Webhook } from "./webhooks.ts";

/** The signed headers of one attempt. */
export function signedHeaders(
  w: Webhook,
  msgId: string,
  body: string,
  now: number,
): Record<string, string> {
  const date = new Date(Math.floor(now / 1000) * 1000);
  const sigs = signingSecrets(w, now).map((s) => new Signer(s).sign(msgId, date, body));
  return {
    "Content-Type": "application/json",
    "User-Agent": "Formwell-Webhooks/1",
    "webhook-id": msgId,
    "webhook-timestamp": String(Math.floor(date.getTime() / 1000)),
    "webhook-signature": sigs.join(" "),
  };
}
