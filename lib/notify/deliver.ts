/**
 * The `deliver_webhook` job: signs each of its stored events with Standard Webhooks and
 * POSTs it to the endpoint through an address checked at this attempt. Every attempt is logged (last
 * {@linkcode DELIVERY_LOG_KEEP} per endpoint); failures are retried on the configured
 * schedule; 410 disables the endpoint at once, and 5 days of failures disable it.
 * @module
 */
import { Webhook as Signer } from "standardwebhooks";
import type { Deps } from "@/lib/deps.ts";
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { eventBody, loadEvent, type NotifyEvent } from "./events.ts";
import { postPinned } from "./http1.ts";
import type { DeliverWebhookJob } from "./jobs.ts";
import { trimLog } from "./outbox.ts";
import { checkTargetUrl, resolveTarget } from "./ssrf.ts";
import { signingSecrets, type Webhook } from "./webhooks.ts";

/** Attempts kept in an endpoint's delivery log. */
export const DELIVERY_LOG_KEEP = 100;
/** Deadline of one attempt. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Bytes of the response body kept in the log. */
export const RESPONSE_KEEP = 1024;
/** An endpoint failing this long with no success is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;

/** One logged attempt. */
export interface Delivery {
  id: string;
  at: string;
  event_id: string;
  /** The `webhook-id` header (the same on every attempt of an event). */
  msg_id: string;
  event: string;
  attempt: number;
  /** HTTP status, or null when no answer came (refused target, connection error, timeout). */
  status: number | null;
  ok: boolean;
  latency_ms: number;
  response: string;
  error?: string;
  /** `retrying`, `delivered`, `failed` (no retry left) or `disabled` (endpoint turned off). */
  outcome: "retrying" | "delivered" | "failed" | "disabled";
  manual?: boolean;
}

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

async function attempt(
  deps: Deps,
  w: Webhook,
  event: NotifyEvent,
): Promise<{ status: number | null; response: string; error?: string }> {
  const allow = deps.config.notify.webhookAllowPrivate;
  try {
    const url = checkTargetUrl(w.url, allow);
    const addrs = await resolveTarget(url, allow);
    const body = eventBody(event);
    const res = await postPinned({
      url,
      address: addrs[0],
      headers: signedHeaders(w, event.id, body, deps.now()),
      body,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxBody: RESPONSE_KEEP,
    });
    return { status: res.status, response: res.body };
  } catch (err) {
    return { status: null, response: "", error: (err as Error).message?.slice(0, 300) };
  }
}

/** POSTs in flight at once for one job (each on its own connection). */
const SEND_CONCURRENCY = 8;

/** One event's attempt, timed. */
interface Sent {
  event: NotifyEvent;
  status: number | null;
  response: string;
  error?: string;
  latency: number;
}

/** Attempts every event (at most {@linkcode SEND_CONCURRENCY} at once), in job order. */
async function sendAll(deps: Deps, w: Webhook, events: NotifyEvent[]): Promise<Sent[]> {
  const out: Sent[] = new Array(events.length);
  let next = 0;
  const worker = async () => {
    while (next < events.length) {
      const i = next++;
      const started = performance.now();
      const r = await attempt(deps, w, events[i]);
      out[i] = { event: events[i], ...r, latency: Math.round(performance.now() - started) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(SEND_CONCURRENCY, events.length) }, worker));
  return out;
}

/**
 * Handles one `deliver_webhook` job: attempts each of its events, then logs every attempt,
 * the endpoint's new state and one retry job for the failed events in one commit. Never
 * throws for an endpoint failure.
 */
export async function deliverWebhookJob(deps: Deps, job: DeliverWebhookJob): Promise<void> {
  const first = await deps.kv.get<Webhook>(keys.webhook(job.webhook_id));
  if (!first.value || (!first.value.enabled && !job.manual)) return;
  // Expired events (older than 7 days) are dropped.
  const events = (await Promise.all(job.event_ids.map((id) => loadEvent(deps, id))))
    .filter((e): e is NotifyEvent => e !== null);
  if (!events.length) return;
  const sent = await sendAll(deps, first.value, events);
  const delays = deps.config.notify.webhookRetryDelays;
  for (let i = 0; i < 10; i++) {
    const e = i === 0 ? first : await deps.kv.get<Webhook>(keys.webhook(job.webhook_id));
    if (!e.value) return;
    const now = deps.now();
    const at = new Date(now).toISOString();
    const w: Webhook = { ...e.value };
    const op = deps.kv.atomic().check(e);
    const logged: Delivery[] = [];
    // In job order: a success clears the failing streak, a failure starts or extends it.
    for (const r of sent) {
      const ok = r.status !== null && r.status >= 200 && r.status < 300;
      let outcome: Delivery["outcome"];
      if (ok) {
        outcome = "delivered";
        w.failing_since = null;
      } else {
        w.failing_since ??= at;
        if (r.status === 410) {
          w.enabled = false;
          w.disabled_reason = "The endpoint answered 410 Gone.";
          outcome = "disabled";
        } else if (now - Date.parse(w.failing_since) >= DISABLE_AFTER_MS) {
          w.enabled = false;
          w.disabled_reason = "The endpoint failed for 5 days with no success.";
          outcome = "disabled";
        } else {
          outcome = !job.manual && job.attempt < delays.length ? "retrying" : "failed";
        }
      }
      const d: Delivery = {
        id: newId("dlv"),
        at,
        event_id: r.event.id,
        msg_id: r.event.id,
        event: r.event.type,
        attempt: job.attempt + 1,
        status: r.status,
        ok,
        latency_ms: r.latency,
        response: r.response,
        ...(r.error ? { error: r.error } : {}),
        outcome,
        ...(job.manual ? { manual: true } : {}),
      };
      logged.push(d);
    }
    const retry: string[] = [];
    for (const d of logged) {
      // An endpoint disabled by this job gets no more attempts.
      if (d.outcome === "retrying") {
        if (w.enabled) retry.push(d.event_id);
        else d.outcome = "failed";
      }
      op.set(keys.webhookDelivery(w.id, d.id), d);
    }
    const changed = w.failing_since !== e.value.failing_since || w.enabled !== e.value.enabled;
    if (changed) op.set(keys.webhook(w.id), { ...w, updated_at: at });
    if (retry.length) {
      deps.jobs.enqueue(op, { ...job, event_ids: retry, attempt: job.attempt + 1 }, {
        delay: delays[job.attempt],
      });
    }
    if ((await op.commit()).ok) {
      await trimLog(deps.kv, keys.webhookDeliveries(w.id), DELIVERY_LOG_KEEP);
      return;
    }
  }
  throw new Error("delivery log write kept conflicting");
}

/** An endpoint's delivery log, newest first (at most {@linkcode DELIVERY_LOG_KEEP}). */
export async function listDeliveries(
  deps: Pick<Deps, "kv">,
  webhookId: string,
): Promise<Delivery[]> {
  const out: Delivery[] = [];
  const it = deps.kv.list<Delivery>({ prefix: keys.webhookDeliveries(webhookId) }, {
    reverse: true,
    limit: DELIVERY_LOG_KEEP,
  });
  for await (const e of it) out.push(e.value);
  return out;
}
