// Receives Formwell webhooks and checks their Standard Webhooks signature.
// Node's standard library only. Run: WEBHOOK_SECRET=whsec_... PORT=3000 node verify-webhook.mjs
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";

const TOLERANCE_SECONDS = 5 * 60;

/** True when one `v1` signature of `webhook-signature` signs this id, timestamp and raw body. */
export function verifyWebhook(secret, headers, rawBody, now = Date.now() / 1000) {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(now - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key)
    .update(`${id}.${timestamp}.`)
    .update(rawBody)
    .digest();
  return signatures.split(" ").some((entry) => {
    const [version, signature] = entry.split(",");
    if (version !== "v1" || !signature) return false;
    const given = Buffer.from(signature, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const rawBody = Buffer.concat(chunks);
    if (!verifyWebhook(process.env.WEBHOOK_SECRET, req.headers, rawBody)) {
      res.writeHead(400).end("invalid signature\n");
      return;
    }
    const event = JSON.parse(rawBody.toString("utf8"));
    // Deliveries are at least once: skip a webhook-id you have already handled.
    console.log(`received ${event.type} ${req.headers["webhook-id"]}`);
    res.writeHead(204).end();
  });
});

server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  console.log(`listening on ${server.address().port}`);
});
