/**
 * One-off webhook deliveries: a resend of a logged delivery and a test event, each one
 * attempt with no retries, scoped to the caller's workspace and (API keys) mode.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { newId } from "@/lib/ids.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { isKept } from "./copies.ts";
import type { Delivery } from "./deliver.ts";
import { eventBytes, loadEvent, type NotifyEvent, storeEvent } from "./events.ts";
import { auditTestSent, type WebhookActor } from "./webhook_edits.ts";
import { requireWebhook } from "./webhooks.ts";

/**
 * Queues one more delivery of a logged event to its endpoint (same `webhook-id`). A delivery
 * no longer logged (30 days, or erased with its person) or whose event is gone (7 days) is 404.
 */
export async function resendDelivery(
  deps: Deps,
  workspaceId: string,
  webhookId: string,
  deliveryId: string,
  mode?: Mode,
): Promise<{ queued: true; event_id: string }> {
  await requireWebhook(deps, workspaceId, webhookId, mode);
  const d = await deps.kv.get<Delivery>(keys.webhookDelivery(webhookId, deliveryId));
  if (!d.value || !isKept(d.value.at, deps.now())) throw errors.notFound("Delivery not found.");
  if (!(await loadEvent(deps, d.value.event_id))) {
    throw errors.notFound("The event is no longer kept (7 days) and can no longer be resent.");
  }
  await queueOne(deps, webhookId, d.value.event_id, () => {});
  return { queued: true, event_id: d.value.event_id };
}

/** Commits one manual delivery of a stored event, with what `add` puts in the same commit. */
async function queueOne(
  deps: Deps,
  webhookId: string,
  eventId: string,
  add: (op: Deno.AtomicOperation) => void,
): Promise<void> {
  const op = deps.kv.atomic();
  add(op);
  deps.jobs.enqueue(op, {
    type: "deliver_webhook",
    event_ids: [eventId],
    webhook_id: webhookId,
    attempt: 0,
    chain: newId("chn"),
    manual: true,
  });
  if (!(await op.commit()).ok) throw new Error("manual delivery enqueue failed");
}

/**
 * Queues a `webhook.test` event to one endpoint (submission null, a placeholder form),
 * audited as `webhook.test_sent`; `by.mode` scopes it as the API key's mode.
 */
export async function sendTestEvent(
  deps: Deps,
  workspaceId: string,
  webhookId: string,
  by: WebhookActor,
): Promise<{ queued: true; event_id: string }> {
  const w = await requireWebhook(deps, workspaceId, webhookId, by.mode);
  const now = new Date(deps.now()).toISOString();
  const event: NotifyEvent = {
    id: newId("msg"),
    type: "webhook.test",
    at: now,
    workspace_id: workspaceId,
    form: {
      id: "test",
      workspace_id: workspaceId,
      name: "Test event",
      fields: [],
      captcha: null,
      honeypot: null,
      allowed_origins: [],
      accepting: true,
      redirect: {},
      schema_version: 1,
      created_at: now,
      updated_at: now,
    },
    submission: null,
  };
  await queueOne(deps, webhookId, event.id, (op) => {
    storeEvent(op, event.id, eventBytes(event));
    auditTestSent(op, deps.now(), by, w.value, event.id);
  });
  return { queued: true, event_id: event.id };
}
