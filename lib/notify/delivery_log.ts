/**
 * An endpoint's delivery log read by event: each event's attempts together, and where the
 * event stands now, which the newest attempt alone does not say (an event retried and then
 * delivered has older `retrying` attempts; a resend after a success may fail).
 * @module
 */
import type { Delivery } from "./deliver.ts";

/**
 * Where an event stands: `delivered` (an attempt succeeded), `retrying` (another attempt is
 * due), `failed` (no attempt is due), `disabled` (its endpoint is disabled, so no attempt is
 * due until it is enabled and the event resent).
 */
export type EventState = "delivered" | "retrying" | "failed" | "disabled";

/** One event of the log with its attempts, newest first. */
export interface EventDeliveries {
  event_id: string;
  event: string;
  submission_id?: string;
  state: EventState;
  /** When the next attempt is due, for a `retrying` event whose attempt recorded it. */
  next_attempt_at?: string;
  attempts: Delivery[];
}

/**
 * Groups a log (newest first) by event, the event with the newest attempt first. The state
 * comes from every attempt: any success is `delivered`; otherwise the newest scheduled
 * attempt's retry is still due only while the endpoint is enabled (a disabled endpoint's
 * retries are dropped), and a manual resend's failure never cancels it.
 */
export function groupByEvent(log: Delivery[], endpointEnabled: boolean): EventDeliveries[] {
  const byEvent = new Map<string, Delivery[]>();
  for (const d of log) {
    const list = byEvent.get(d.event_id);
    if (list) list.push(d);
    else byEvent.set(d.event_id, [d]);
  }
  return [...byEvent.values()].map((attempts): EventDeliveries => {
    const newest = attempts[0];
    const submission_id = attempts.find((d) => d.submission_id)?.submission_id;
    const base = {
      event_id: newest.event_id,
      event: newest.event,
      ...(submission_id ? { submission_id } : {}),
      attempts,
    };
    if (attempts.some((d) => d.outcome === "delivered")) return { ...base, state: "delivered" };
    const scheduled = attempts.find((d) => !d.manual);
    if (scheduled?.outcome === "retrying") {
      if (!endpointEnabled) return { ...base, state: "disabled" };
      return {
        ...base,
        state: "retrying",
        ...(scheduled.next_attempt_at ? { next_attempt_at: scheduled.next_attempt_at } : {}),
      };
    }
    return { ...base, state: newest.outcome === "disabled" ? "disabled" : "failed" };
  });
}
