/**
 * The `deliver_webhook` job: signs each of its stored events with Standard Webhooks and
 * POSTs it to the endpoint through an address checked at this attempt, all within
 * {@linkcode DELIVERY_TIMEOUT_MS}; a destination gets its service's message instead
 * (destinations/). Every attempt is logged (last {@linkcode DELIVERY_LOG_KEEP} per endpoint,
 * 30 days); failures are retried on the configured schedule, in one chain per job
 * (chains.ts); a rate-limit answer is retried when the service asked (1 s to 1 h) and is not
 * a failure: it moves neither the schedule nor the endpoint toward disabling (up to
 * {@linkcode MAX_RATE_LIMITED} in a row). An answer that no retry can fix (410, a
 * destination's permanent errors) disables the endpoint at once, and 5 days of failures
 * disable it.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry } from "@/lib/kv/kv.ts";
import { claimAttempt, deferRun, heldBy, markLogged } from "./chains.ts";
import { addEntry, type CappedLog, listLog, trimLog } from "./capped_log.ts";
import { type Answer, answerOf, outgoing } from "./destinations/mod.ts";
import { MAX_RETRY_AFTER_MS, MIN_RETRY_AFTER_MS } from "./destinations/answer.ts";
import { loadEvent, type NotifyEvent } from "./events.ts";
import { postPinned } from "./http1.ts";
import type { DeliverWebhookJob } from "./jobs.ts";
import { checkTargetUrl, resolveTarget } from "./ssrf.ts";
import type { Webhook } from "./webhooks.ts";

export { signedHeaders } from "./signing.ts";

/** Attempts kept in an endpoint's delivery log. */
export const DELIVERY_LOG_KEEP = 100;
/** Deadline of one attempt: name lookup, connect, TLS and the exchange. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Bytes of the response body kept in the log. */
export const RESPONSE_KEEP = 1024;
/** An endpoint failing this long with no success is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;
/** Rate-limit answers a chain waits out; past them, one counts as a failure. */
export const MAX_RATE_LIMITED = 50;

/** One logged attempt. */
export interface Delivery {
  id: string;
  at: string;
  event_id: string;
  /** The `webhook-id` header (the same on every attempt of an event). */
  msg_id: string;
  event: string;
  /** The submission the event is about (none for test events). */
  submission_id?: string;
  attempt: number;
  /** HTTP status, or null when no answer came (refused target, connection error, timeout). */
  status: number | null;
  ok: boolean;
  latency_ms: number;
  response: string;
  error?: string;
  /** `retrying`, `delivered`, `failed` (no retry left) or `disabled` (endpoint turned off). */
  outcome: "retrying" | "delivered" | "failed" | "disabled";
  /** When a `retrying` attempt's event is attempted next (the retry job's due time). */
  next_attempt_at?: string;
  manual?: boolean;
}

/** What one attempt got: the answer (null status: none came) and what it means. */
interface Attempted {
  status: number | null;
  response: string;
  error?: string;
  answer: Answer;
}

async function attempt(deps: Deps, w: Webhook, event: NotifyEvent): Promise<Attempted> {
  const allow = deps.config.notify.webhookAllowPrivate;
  const deadline = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
  try {
    const url = checkTargetUrl(w.url, allow);
    const addrs = await resolveTarget(url, allow, deadline);
    const out = outgoing(deps, w, event, deps.now());
    const res = await postPinned({
      url,
      address: addrs[0],
      headers: out.headers,
      body: out.body,
      deadline,
      maxBody: RESPONSE_KEEP,
    });
    return { status: res.status, response: res.body, answer: answerOf(w, res, deps.now()) };
  } catch (err) {
    const error = deadline.aborted
      ? `timeout after ${DELIVERY_TIMEOUT_MS} ms`
      : (err as Error).message;
    return { status: null, response: "", error: error?.slice(0, 300), answer: { kind: "retry" } };
  }
}

/** POSTs in flight at once for one job (each on its own connection). */
const SEND_CONCURRENCY = 8;

/** One event's attempt, timed. */
interface Sent extends Attempted {
  event: NotifyEvent;
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

/** How long a run of `n` events may take at most: what its claim on the attempt holds for. */
function holdFor(n: number): number {
  return Math.ceil(n / SEND_CONCURRENCY) * DELIVERY_TIMEOUT_MS + 5_000;
}

/**
 * Handles one `deliver_webhook` job: claims its attempt of its chain, attempts each of its
 * events, then logs every attempt, the endpoint's new state and one retry job for the failed
 * events in one commit that checks the claim. Never throws for an endpoint failure.
 */
export async function deliverWebhookJob(deps: Deps, job: DeliverWebhookJob): Promise<void> {
  const first = await deps.kv.get<Webhook>(keys.webhook(job.webhook_id));
  if (!first.value || (!first.value.enabled && !job.manual)) return;
  // Expired or erased events are dropped.
  const events = (await Promise.all(job.event_ids.map((id) => loadEvent(deps, id))))
    .filter((e): e is NotifyEvent => e !== null);
  if (!events.length) return;
  const { chain } = job;
  const claim = await claimAttempt(
    deps,
    job.webhook_id,
    chain,
    job.attempt,
    holdFor(events.length),
  );
  if (claim.kind === "logged") return;
  if (claim.kind === "held") return await deferRun(deps, job, claim.until);
  const sent = await sendAll(deps, first.value, events);
  const delays = deps.config.notify.webhookRetryDelays;
  const logged = await commitWithRetry(deps.kv, async (op) => {
    const e = await deps.kv.get<Webhook>(keys.webhook(job.webhook_id));
    const held = await heldBy(deps, job.webhook_id, chain, claim.token);
    // The endpoint was deleted, or another run took the attempt over: it logs, not this one.
    if (!e.value || !held) return null;
    const now = deps.now();
    const at = new Date(now).toISOString();
    const w: Webhook = { ...e.value };
    op.check(e);
    markLogged(op, held);
    const retry: string[] = [];
    const logs: Delivery[] = [];
    const scheduled = delays[failuresOf(job)] ?? 0;
    // Retried when every service asked, unless a failure puts the retry on the schedule.
    let asked = 0;
    let failed = false;
    // In job order: a success clears the failing streak, a failure starts or extends it.
    for (const r of sent) {
      const d = outcomeOf(w, job, r, now, at, delays.length);
      // An endpoint disabled by this job gets no more attempts.
      if (d.outcome === "retrying") {
        if (w.enabled) {
          retry.push(d.event_id);
          if (waits(job, r.answer)) asked = Math.max(asked, waitOf(r.answer, scheduled));
          else failed = true;
        } else d.outcome = "failed";
      }
      logs.push(d);
    }
    const delay = failed ? Math.max(scheduled, asked) : asked;
    const results = logs.map((d) => d.outcome);
    for (const d of logs) {
      if (d.outcome === "retrying") d.next_attempt_at = new Date(now + delay).toISOString();
      addEntry(op, keys.webhookDelivery(w.id, d.id), d, d.event_id);
    }
    const changed = w.failing_since !== e.value.failing_since || w.enabled !== e.value.enabled;
    if (changed) op.set(keys.webhook(w.id), { ...w, updated_at: at });
    if (retry.length) {
      const rateLimited = (job.rate_limited ?? 0) + (failed ? 0 : 1);
      const next = { ...job, event_ids: retry, attempt: job.attempt + 1 };
      deps.jobs.enqueue(op, { ...next, rate_limited: rateLimited }, { delay });
    }
    return { id: w.id, results };
  });
  if (!logged) return;
  for (const r of logged.results) deps.metrics?.webhook(r);
  await trimLog(deps.kv, deliveryLog(logged.id));
}

/** The logged attempt of one event, updating `w`'s failure state as it goes. */
function outcomeOf(
  w: Webhook,
  job: DeliverWebhookJob,
  r: Sent,
  now: number,
  at: string,
  retries: number,
): Delivery {
  const ok = r.answer.kind === "delivered";
  let outcome: Delivery["outcome"];
  if (ok) {
    outcome = "delivered";
    w.failing_since = null;
  } else if (waits(job, r.answer)) {
    // Not a failure: the endpoint's failing streak neither starts nor grows.
    outcome = job.manual ? "failed" : "retrying";
  } else {
    w.failing_since ??= at;
    if (r.answer.kind === "disable") {
      w.enabled = false;
      w.disabled_reason = r.answer.reason;
      outcome = "disabled";
    } else if (now - Date.parse(w.failing_since) >= DISABLE_AFTER_MS) {
      w.enabled = false;
      w.disabled_reason = "The endpoint failed for 5 days with no success.";
      outcome = "disabled";
    } else if (r.answer.kind === "failed") {
      outcome = "failed";
    } else {
      outcome = !job.manual && failuresOf(job) < retries ? "retrying" : "failed";
    }
  }
  return {
    id: newId("dlv"),
    at,
    event_id: r.event.id,
    msg_id: r.event.id,
    event: r.event.type,
    ...(r.event.submission ? { submission_id: r.event.submission.id } : {}),
    attempt: job.attempt + 1,
    status: r.status,
    ok,
    latency_ms: r.latency,
    response: r.response,
    ...(r.error ? { error: r.error } : r.answer.kind === "failed" ? { error: r.answer.why } : {}),
    outcome,
    ...(job.manual ? { manual: true } : {}),
  };
}

/** The failed attempts of a job's chain so far: its position in the failure schedule. */
function failuresOf(job: DeliverWebhookJob): number {
  return job.attempt - (job.rate_limited ?? 0);
}

/** Whether an answer is a rate limit this chain still waits out (not a failure). */
function waits(job: DeliverWebhookJob, answer: Answer): boolean {
  return answer.kind === "rate_limited" && (job.rate_limited ?? 0) < MAX_RATE_LIMITED;
}

/** The wait a rate-limit answer asked for, 1 s to 1 h (the schedule's when it named none). */
function waitOf(answer: Answer, scheduled: number): number {
  const ms = answer.kind === "rate_limited" ? answer.afterMs ?? scheduled : scheduled;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(MIN_RETRY_AFTER_MS, ms));
}

/** An endpoint's delivery log, newest first (at most {@linkcode DELIVERY_LOG_KEEP}, 30 days). */
export async function listDeliveries(
  deps: Pick<Deps, "kv" | "now">,
  webhookId: string,
): Promise<Delivery[]> {
  return await listLog<Delivery>(deps, deliveryLog(webhookId));
}

function deliveryLog(webhookId: string): CappedLog {
  return { prefix: keys.webhookDeliveries(webhookId), keep: DELIVERY_LOG_KEEP };
}
