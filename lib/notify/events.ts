/**
 * Stored notification events: what happened to a submission, kept (in chunks, as a
 * submission may exceed one KV value) for {@linkcode EVENT_TTL_MS} so retries and resends
 * send the same body.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Form } from "@/lib/schemas.ts";
import type { PublicSubmission } from "@/lib/submissions/query.ts";

/** Event types a webhook may subscribe to. */
export const EVENT_TYPES = [
  "submission.created",
  "submission.status_changed",
  "submission.deleted",
] as const;
/** A subscribable event type. */
export type EventType = typeof EVENT_TYPES[number];

/** How long an event stays available for retries and resends: 7 days. */
export const EVENT_TTL_MS = 7 * 24 * 3600 * 1000;
const CHUNK = 60_000;

/** A stored event. `id` doubles as the `webhook-id` of every delivery of it. */
export interface NotifyEvent {
  id: string;
  /** `webhook.test` and `email.test` are the admin's test sends, never a submission's. */
  type: EventType | "webhook.test" | "email.test";
  at: string;
  workspace_id: string;
  form: Form;
  submission: PublicSubmission | null;
  previous_status?: string;
  /** A `submission.created`'s owner-email subject and reply-to asked for by its post. */
  owner_mail?: { subject?: string; reply_to?: string };
}

/** The fixed id of a submission's `submission.created` event (notified once, whatever retries). */
export function createdEventId(submissionId: string): string {
  return `msg_created_${submissionId}`;
}

/** The webhook body of an event (CONTRACT): deterministic, so retries send the same bytes. */
export function eventBody(e: NotifyEvent): string {
  const data: Record<string, unknown> = {
    form: { public_id: e.form.id, name: e.form.name },
    submission: e.submission,
  };
  if (e.previous_status) data.previous_status = e.previous_status;
  return JSON.stringify({ type: e.type, timestamp: e.at, data });
}

/** An event as stored: its JSON, UTF-8 encoded. */
export function eventBytes(e: NotifyEvent): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(e));
}

/** Adds a stored event's chunks ({@linkcode eventBytes}) to an atomic operation. */
export function storeEvent(op: Deno.AtomicOperation, id: string, bytes: Uint8Array): void {
  for (let i = 0, n = 0; i < bytes.length || n === 0; i += CHUNK, n++) {
    op.set(keys.notifyEventChunk(id, n), bytes.slice(i, i + CHUNK), { expireIn: EVENT_TTL_MS });
  }
}

/** Reads a stored event; null once it expired. */
export async function loadEvent(deps: Pick<Deps, "kv">, id: string): Promise<NotifyEvent | null> {
  const parts: Uint8Array[] = [];
  for await (const e of deps.kv.list<Uint8Array>({ prefix: keys.notifyEvent(id) })) {
    parts.push(e.value);
  }
  if (parts.length === 0) return null;
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return JSON.parse(new TextDecoder().decode(all)) as NotifyEvent;
}
