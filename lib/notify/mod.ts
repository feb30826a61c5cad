/**
 * Notifications entry points: {@linkcode notifySubmission} turns a submission event into
 * owner emails, an autoresponse and webhook deliveries, all enqueued in one atomic
 * commit with the stored event; {@linkcode resendDelivery} and {@linkcode sendTestEvent}
 * queue one-off deliveries.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { getManyChunked } from "@/lib/kv/kv.ts";
import { getForm } from "@/lib/forms/forms.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import { submissionView } from "@/lib/submissions/query.ts";
import { plainAddress } from "./email.ts";
import { type EventType, loadEvent, type NotifyEvent, storeEvent } from "./events.ts";
import { listWebhooks, requireWebhook, type Webhook } from "./webhooks.ts";

/** What happened to a submission. */
export interface SubmissionEvent {
  type: EventType;
  form: Form;
  /** The submission, with its final status (for `submission.deleted`: as it was). */
  submission: Submission;
  /** For `submission.status_changed`. */
  previous_status?: string;
  /**
   * A fixed event id (e.g. one per submission for `submission.created`): a second call with
   * it enqueues nothing, so a re-delivered job notifies once.
   */
  event_id?: string;
}

/** One autoresponse per submitter address per form per hour. */
export const AUTORESPONDER_WINDOW_MS = 3600 * 1000;

async function addressDigest(formId: string, address: string): Promise<string> {
  const data = new TextEncoder().encode(`${formId}\n${address.toLowerCase()}`);
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return Array.from(d.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Enqueues what an event triggers (live submissions only): for `submission.created`, the
 * owner email (suspicious ones if `notify_suspicious`, marked; spam if `notify_spam`) and
 * an autoresponse (completed only, rate-limited); for every event, a delivery to each
 * enabled webhook subscribed to it and to the form. Returns the event id, or null when
 * nothing was due.
 */
export async function notifySubmission(
  deps: Deps,
  ev: SubmissionEvent,
  /** The workspace's webhooks, when the caller has them (one list for many events). */
  webhooks?: Webhook[],
): Promise<string | null> {
  const { form, submission: s } = ev;
  if (s.mode !== "live") return null;
  const n = form.notifications;
  const hooks = (webhooks ?? await listWebhooks(deps, s.workspace_id)).filter((w) =>
    w.enabled && w.events.includes(ev.type) && (w.forms.length === 0 || w.forms.includes(form.id))
  );
  let ownerMail = false;
  let autoKey: Deno.KvKey | null = null;
  if (ev.type === "submission.created" && n) {
    const statusOk = s.status === "completed" ||
      (s.status === "suspicious" && n.notify_suspicious) ||
      (s.status === "spam" && n.notify_spam);
    ownerMail = statusOk && n.emails.length > 0;
    const a = n.autoresponder;
    const addr = a?.enabled && s.status === "completed"
      ? plainAddress(s.fields[a.email_field])
      : null;
    if (addr) autoKey = keys.autoresponderSent(form.id, await addressDigest(form.id, addr));
  }
  if (!ownerMail && !autoKey && hooks.length === 0) return null;
  const first = ev.event_id ? keys.notifyEventChunk(ev.event_id, 0) : null;
  const event: NotifyEvent = {
    id: ev.event_id ?? newId("msg"),
    type: ev.type,
    at: new Date(deps.now()).toISOString(),
    workspace_id: s.workspace_id,
    form,
    submission: submissionView(s),
    ...(ev.previous_status ? { previous_status: ev.previous_status } : {}),
  };
  for (let i = 0; i < 5; i++) {
    if (first && (await deps.kv.get(first)).versionstamp !== null) return event.id;
    const marker = autoKey ? await deps.kv.get(autoKey) : null;
    const op = deps.kv.atomic();
    if (first) op.check({ key: first, versionstamp: null });
    storeEvent(op, event);
    if (ownerMail) {
      deps.jobs.enqueue(op, { type: "send_email", event_id: event.id, kind: "owner", attempt: 0 });
    }
    if (autoKey && marker && marker.versionstamp === null) {
      op.check(marker).set(autoKey, true, { expireIn: AUTORESPONDER_WINDOW_MS });
      deps.jobs.enqueue(op, {
        type: "send_email",
        event_id: event.id,
        kind: "autoresponder",
        attempt: 0,
      });
    }
    for (const w of hooks) {
      deps.jobs.enqueue(op, {
        type: "deliver_webhook",
        event_id: event.id,
        webhook_id: w.id,
        attempt: 0,
      });
    }
    if ((await op.commit()).ok) return event.id;
  }
  throw new Error("notification enqueue kept conflicting");
}

/** Queues one more delivery of a logged event to its endpoint (same `webhook-id`). */
export async function resendDelivery(
  deps: Deps,
  workspaceId: string,
  webhookId: string,
  deliveryId: string,
): Promise<{ queued: true; event_id: string }> {
  await requireWebhook(deps, workspaceId, webhookId);
  const d = await deps.kv.get<{ event_id: string }>(keys.webhookDelivery(webhookId, deliveryId));
  if (!d.value) throw errors.notFound("Delivery not found.");
  if (!(await loadEvent(deps, d.value.event_id))) {
    throw errors.notFound("The event is older than 7 days and can no longer be resent.");
  }
  const op = deps.kv.atomic();
  deps.jobs.enqueue(op, {
    type: "deliver_webhook",
    event_id: d.value.event_id,
    webhook_id: webhookId,
    attempt: 0,
    manual: true,
  });
  if (!(await op.commit()).ok) throw new Error("resend enqueue failed");
  return { queued: true, event_id: d.value.event_id };
}

/** Queues a `webhook.test` event to one endpoint (submission null, a placeholder form). */
export async function sendTestEvent(
  deps: Deps,
  workspaceId: string,
  webhookId: string,
): Promise<{ queued: true; event_id: string }> {
  await requireWebhook(deps, workspaceId, webhookId);
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
  const op = deps.kv.atomic();
  storeEvent(op, event);
  deps.jobs.enqueue(op, {
    type: "deliver_webhook",
    event_id: event.id,
    webhook_id: webhookId,
    attempt: 0,
    manual: true,
  });
  if (!(await op.commit()).ok) throw new Error("test event enqueue failed");
  return { queued: true, event_id: event.id };
}

/**
 * Handler of `notify_created`, enqueued by the verdict commit: a `submission.created`
 * event per live submission it scored, each once (its event id is fixed by the submission).
 */
export async function notifyCreatedJob(
  deps: Deps,
  job: { form_id: string; ids: string[] },
): Promise<void> {
  const form = await getForm(deps, job.form_id);
  if (!form) return;
  // Most forms notify nobody: one list of the workspace's webhooks decides, for the batch.
  const webhooks = await listWebhooks(deps, form.workspace_id);
  if (!form.notifications && webhooks.length === 0) return;
  const entries = await getManyChunked<Submission>(
    deps.kv,
    job.ids.map((id) => keys.submission(job.form_id, id)),
  );
  for (const e of entries) {
    if (!e.value) continue;
    await notifySubmission(deps, {
      type: "submission.created",
      form,
      submission: e.value,
      event_id: `msg_created_${e.value.id}`,
    }, webhooks);
  }
}

/**
 * Notifies `submission.status_changed` or `submission.deleted` right after the commit that
 * made it; a failure is logged (the change itself stands).
 */
export async function notifyQuietly(deps: Deps, ev: SubmissionEvent): Promise<void> {
  try {
    await notifySubmission(deps, ev);
  } catch (err) {
    console.error(JSON.stringify({
      level: "error",
      msg: "notification enqueue failed",
      type: ev.type,
      err: String(err),
    }));
  }
}
