/**
 * What notifies about one form, for its Integrations tab: its notification email (owner
 * addresses, autoresponder) with the last email log entries, and the workspace's webhooks
 * and destinations that apply to it with each one's last delivery; and the test mail to the
 * owner addresses (through the mailer job, so SMTP or the Outbox as configured).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { newId } from "@/lib/ids.ts";
import { type Field, type Form, isFileType } from "@/lib/schemas.ts";
import { type Delivery, listDeliveries } from "./deliver.ts";
import { eventBytes, type NotifyEvent, storeEvent } from "./events.ts";
import { type EmailLogEntry, listEmailLog, LOG_KEEP } from "./outbox.ts";
import { listWebhooks, type WebhookView, webhookView } from "./webhooks.ts";

/** A webhook or destination that applies to the form, with its last logged attempt. */
export interface FormHook {
  hook: WebhookView;
  last: Delivery | null;
}

/** A form's integrations as its tab shows them. */
export interface FormIntegrations {
  emails: string[];
  autoresponder: boolean;
  /** The last owner mail and autoresponse of the form in the email log (30 days). */
  lastOwnerMail: EmailLogEntry | null;
  lastAutoresponse: EmailLogEntry | null;
  hooks: FormHook[];
}

/** The form's integrations: its email settings and the endpoints of its workspace that apply. */
export async function formIntegrations(
  deps: Pick<Deps, "kv" | "now">,
  form: Form,
): Promise<FormIntegrations> {
  const [log, all] = await Promise.all([
    listEmailLog(deps, form.workspace_id, LOG_KEEP),
    listWebhooks(deps, form.workspace_id),
  ]);
  const mine = log.filter((e) => e.form_id === form.id);
  const applies = all.filter((w) => w.forms.length === 0 || w.forms.includes(form.id));
  const hooks = await Promise.all(applies.map(async (w) => ({
    hook: webhookView(w),
    last: (await listDeliveries(deps, w.id))[0] ?? null,
  })));
  const n = form.notifications;
  return {
    emails: n?.emails ?? [],
    autoresponder: Boolean(n?.autoresponder?.enabled),
    lastOwnerMail: mine.find((e) => e.kind === "owner") ?? null,
    lastAutoresponse: mine.find((e) => e.kind === "autoresponder") ?? null,
    hooks,
  };
}

/** A sample value of a field, so a test mail looks like a real one. */
function sampleValue(f: Field): unknown {
  switch (f.type) {
    case "email":
      return "someone@example.com";
    case "number":
    case "integer":
      return 42;
    case "boolean":
      return true;
    case "select":
    case "radio":
      return f.options?.[0] ?? "an option";
    case "multiselect":
      return f.options?.slice(0, 2) ?? ["an option"];
    case "date":
      return "2026-01-31";
    case "datetime":
      return "2026-01-31T09:30";
    default:
      return `Example ${(f.label ?? f.name).toLowerCase()}`;
  }
}

/**
 * Queues a test owner mail of `form` (sample values, marked "[Test]") to its notification
 * addresses; 400 when it has none.
 */
export async function sendTestMail(deps: Deps, form: Form): Promise<{ queued: true }> {
  const to = form.notifications?.emails ?? [];
  if (to.length === 0) {
    throw errors.badRequest("This form has no notification addresses: add one in Edit first.");
  }
  const now = new Date(deps.now()).toISOString();
  const fields = Object.fromEntries(
    form.fields.filter((f) => f.type !== "hidden" && !isFileType(f.type))
      .map((f) => [f.name, sampleValue(f)]),
  );
  const event: NotifyEvent = {
    id: newId("msg"),
    type: "email.test",
    at: now,
    workspace_id: form.workspace_id,
    form,
    submission: {
      id: "sub_test",
      form_id: form.id,
      fields,
      metadata: {},
      status: "completed",
      created_at: now,
      submission_number: 0,
    },
  };
  const op = deps.kv.atomic();
  storeEvent(op, event.id, eventBytes(event));
  deps.jobs.enqueue(op, { type: "send_email", event_id: event.id, kind: "owner", attempt: 0 });
  if (!(await op.commit()).ok) throw new Error("test mail enqueue failed");
  return { queued: true };
}
