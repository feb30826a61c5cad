/**
 * The `send_email` job: renders the mail of a stored event and sends it through SMTP
 * (nodemailer) or, with no `SMTP_URL`, keeps it in the outbox. An autoresponse first counts
 * against the autoresponder's limits (lib/notify/autoresponder.ts); one held back is logged
 * `suppressed`, never queued for later. Temporary failures (SMTP 4xx, connection errors) are
 * retried on the configured schedule; permanent ones (5xx) stop. Every outcome goes to the
 * email log.
 * @module
 */
import nodemailer from "nodemailer";
import type { Transporter } from "nodemailer";
import type { Deps } from "@/lib/deps.ts";
import { autoresponseAddress, claimAutoresponse, SUPPRESSED_DETAIL } from "./autoresponder.ts";
import { renderAutoresponse, type RenderedMail, renderOwnerMail } from "./email.ts";
import { loadEvent } from "./events.ts";
import type { SendAccountMailJob, SendEmailJob, SendVisitorMailJob } from "./jobs.ts";
import {
  ACCOUNT_OUTBOX,
  type EmailLogEntry,
  logEmail,
  type OutboxMail,
  putOutbox,
} from "./outbox.ts";
import { logger } from "@/lib/observe/log.ts";

const transports = new Map<string, Transporter>();

function transportFor(url: string): Transporter {
  let t = transports.get(url);
  if (!t) {
    t = nodemailer.createTransport(url);
    transports.set(url, t);
  }
  return t;
}

/** Whether an SMTP error is permanent (a 5xx reply); everything else is retried. */
export function isPermanent(err: unknown): boolean {
  const code = (err as { responseCode?: unknown })?.responseCode;
  return typeof code === "number" && code >= 500 && code < 600;
}

function describe(err: unknown): string {
  const e = err as { responseCode?: number; code?: string; message?: string };
  return [e?.responseCode, e?.code, e?.message?.slice(0, 300)].filter(Boolean).join(" ");
}

/** Handles one `send_email` job; never throws for an SMTP failure (retries are ours). */
export async function sendEmailJob(deps: Deps, job: SendEmailJob): Promise<void> {
  const event = await loadEvent(deps, job.event_id);
  if (!event?.submission) return;
  const { form, submission } = event;
  let to: string[];
  let mail: RenderedMail;
  if (job.kind === "owner") {
    to = form.notifications?.emails ?? [];
    mail = await renderOwnerMail(
      deps,
      form,
      submission,
      event.owner_mail,
      event.type === "email.test",
    );
  } else {
    const addr = autoresponseAddress(form, submission);
    if (!addr) return;
    to = [addr];
    mail = renderAutoresponse(form, submission);
    const held = await claimAutoresponse(deps, {
      workspaceId: event.workspace_id,
      formId: form.id,
      eventId: event.id,
      address: addr,
    });
    if (held) {
      await logEmail(deps, event.workspace_id, {
        form_id: form.id,
        event_id: event.id,
        kind: job.kind,
        to,
        subject: mail.subject,
        attempt: job.attempt,
        result: "suppressed",
        detail: SUPPRESSED_DETAIL[held],
      });
      return;
    }
  }
  if (to.length === 0) return;
  await sendOrKeep(deps, job, {
    outbox: event.workspace_id,
    logKept: true,
    mail: {
      form_id: form.id,
      from: deps.config.notify.mailFrom,
      to,
      reply_to: mail.replyTo,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
    },
    log: { form_id: form.id, event_id: event.id, kind: job.kind },
  });
}

/**
 * Sends a mail through SMTP, or with no `SMTP_URL` keeps it in the outbox of `outbox`
 * (logged as `outbox` when `logKept`). SMTP outcomes go to that email log; a temporary
 * failure re-enqueues `job` with the next attempt and delay, a permanent one (or the last
 * attempt) is logged `failed`.
 */
async function sendOrKeep(
  deps: Deps,
  job: SendEmailJob | SendAccountMailJob | SendVisitorMailJob,
  o: {
    outbox: string;
    logKept: boolean;
    mail: Omit<OutboxMail, "id" | "at">;
    log: Pick<EmailLogEntry, "form_id" | "event_id" | "kind">;
  },
): Promise<void> {
  const { mail } = o;
  const base = { ...o.log, to: mail.to, subject: mail.subject, attempt: job.attempt };
  const smtp = deps.config.notify.smtpUrl;
  if (!smtp) {
    await putOutbox(deps, o.outbox, mail, o.log.event_id);
    if (o.logKept) await logEmail(deps, o.outbox, { ...base, result: "outbox" });
    return;
  }
  try {
    const info = await transportFor(smtp).sendMail({
      from: mail.from,
      to: mail.to,
      ...(mail.reply_to ? { replyTo: mail.reply_to } : {}),
      subject: mail.subject,
      text: mail.text,
      ...(mail.html ? { html: mail.html } : {}),
      disableFileAccess: true,
      disableUrlAccess: true,
    });
    const rejected = (info.rejected ?? []).map(String);
    await logEmail(deps, o.outbox, {
      ...base,
      result: rejected.length ? "failed" : "accepted",
      detail: rejected.length ? `rejected: ${rejected.join(", ")}` : undefined,
    });
  } catch (err) {
    const delays = deps.config.notify.emailRetryDelays;
    const retry = !isPermanent(err) && job.attempt < delays.length;
    await logEmail(deps, o.outbox, {
      ...base,
      result: retry ? "retrying" : "failed",
      detail: describe(err),
    });
    if (!retry) {
      if (o.log.form_id) {
        logger.warn("email failed", { form: o.log.form_id });
      }
      return;
    }
    const op = deps.kv.atomic();
    deps.jobs.enqueue(op, { ...job, attempt: job.attempt + 1 }, { delay: delays[job.attempt] });
    if (!(await op.commit()).ok) throw new Error(`${job.type} retry enqueue failed`);
  }
}

/**
 * Handles one `send_account_mail` job: SMTP when set (temporary failures retried like
 * form mail), else the account outbox; outcomes go to the account email log.
 */
export async function sendAccountMailJob(deps: Deps, job: SendAccountMailJob): Promise<void> {
  await sendOrKeep(deps, job, {
    outbox: ACCOUNT_OUTBOX,
    logKept: false,
    mail: {
      form_id: "",
      from: deps.config.notify.mailFrom,
      to: [job.to],
      subject: job.subject,
      text: job.text,
      html: "",
    },
    log: { form_id: "", event_id: "", kind: "account" },
  });
}

/**
 * Handles one `send_visitor_mail` job: SMTP when set (temporary failures retried like form
 * mail), else the workspace's outbox; outcomes go to the workspace's email log.
 */
export async function sendVisitorMailJob(deps: Deps, job: SendVisitorMailJob): Promise<void> {
  await sendOrKeep(deps, job, {
    outbox: job.workspace_id,
    logKept: true,
    mail: {
      form_id: job.form_id,
      from: deps.config.notify.mailFrom,
      to: [job.to],
      subject: job.subject,
      text: job.text,
      html: "",
    },
    log: { form_id: job.form_id, event_id: job.mail_id, kind: "resume_link" },
  });
}
