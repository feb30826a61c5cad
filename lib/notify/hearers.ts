/**
 * Who hears about a submission event: the form's owner by mail, the sender by autoresponse
 * and the webhooks listening in the submission's mode. The one place that decides it: the
 * commit giving final verdicts (submissions/commit.ts, jobs/score_batch.ts) enqueues
 * `notify_created` exactly when someone hears of one of its submissions, and the notifier
 * (notify/mod.ts) enqueues what this names.
 * @module
 */
import type { Form, Submission } from "@/lib/schemas.ts";
import { autoresponseAddress } from "./autoresponder.ts";
import type { EventType } from "./events.ts";
import type { Listening } from "./webhooks.ts";

/** Who hears of one event. */
export interface Hearers {
  /** The form's notification emails (a live `submission.created` of a status they take). */
  ownerMail: boolean;
  /** An autoresponse to the sender (its job applies the autoresponder's limits). */
  autoresponse: boolean;
  /** The ids of the webhooks that receive it. */
  webhooks: string[];
}

/**
 * Who hears of `event` about `s` (with its final status), given what each of the
 * workspace's webhooks listens to (by id; a disabled one listens to nothing). Mail goes for
 * live submissions only; endpoints hear their own mode's.
 */
export function whoHears(
  form: Pick<Form, "id" | "notifications">,
  event: EventType,
  s: Pick<Submission, "mode" | "status" | "fields">,
  listening: Iterable<readonly [string, Listening]>,
): Hearers {
  const n = form.notifications;
  let ownerMail = false;
  let autoresponse = false;
  if (event === "submission.created" && n && s.mode === "live") {
    const statusOk = s.status === "completed" ||
      (s.status === "suspicious" && n.notify_suspicious) ||
      (s.status === "spam" && n.notify_spam);
    ownerMail = statusOk && n.emails.length > 0;
    autoresponse = autoresponseAddress(form, s) !== null;
  }
  const webhooks: string[] = [];
  for (const [id, l] of listening) {
    if (l.mode === s.mode && hears(l, event, form.id)) webhooks.push(id);
  }
  return { ownerMail, autoresponse, webhooks };
}

/** Whether anyone hears (see whoHears). */
export function heard(h: Hearers): boolean {
  return h.ownerMail || h.autoresponse || h.webhooks.length > 0;
}

/** Whether `l` (what an endpoint listens to) takes `event` of form `formId`. */
function hears(l: Listening, event: EventType, formId: string): boolean {
  return l.events.includes(event) && (l.forms.length === 0 || l.forms.includes(formId));
}
