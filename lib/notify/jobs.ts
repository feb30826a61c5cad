/**
 * The notification jobs carried by the queue. Retries are ours: a failed attempt
 * re-enqueues the job with `attempt + 1` and a delay from the configured schedule.
 * @module
 */
import { z } from "zod";

/** Sends the owner email or the autoresponse of one stored event. */
export const sendEmailJobSchema = z.object({
  type: z.literal("send_email"),
  event_id: z.string().max(100),
  kind: z.enum(["owner", "autoresponder"]),
  attempt: z.number().int().min(0).max(100),
});

/** Events one delivery job carries at most (one commit logs them all). */
export const MAX_EVENTS_PER_DELIVERY = 50;

/**
 * Delivers stored events to one webhook endpoint: one POST each, one log commit for the
 * job; the failed ones are retried together.
 */
export const deliverWebhookJobSchema = z.object({
  type: z.literal("deliver_webhook"),
  event_ids: z.array(z.string().max(100)).min(1).max(MAX_EVENTS_PER_DELIVERY),
  webhook_id: z.string().max(100),
  /** Attempts made before this one, rate-limited ones included. */
  attempt: z.number().int().min(0).max(1000),
  /** How many of them were rate limited (they do not move the failure schedule). */
  rate_limited: z.number().int().min(0).max(1000).optional(),
  /** The retry chain it belongs to (lib/notify/chains.ts). */
  chain: z.string().max(100),
  /** A resend or test event: one attempt, no retries. */
  manual: z.boolean().optional(),
});

/** Notifies `submission.created` for submissions one verdict commit scored. */
export const notifyCreatedJobSchema = z.object({
  type: z.literal("notify_created"),
  form_id: z.string().max(100),
  ids: z.array(z.string().max(100)).min(1).max(1000),
});

/** Sends one account mail (invitation, password reset) through SMTP; see lib/admin/mail.ts. */
export const sendAccountMailJobSchema = z.object({
  type: z.literal("send_account_mail"),
  to: z.string().max(254),
  subject: z.string().max(300),
  text: z.string().max(20_000),
  attempt: z.number().int().min(0).max(100),
});

/**
 * Sends one mail a visitor asked for (a resume link, lib/drafts) on a workspace's behalf:
 * SMTP when set, else the workspace's outbox; logged in its email log.
 */
export const sendVisitorMailJobSchema = z.object({
  type: z.literal("send_visitor_mail"),
  workspace_id: z.string().max(100),
  form_id: z.string().max(100),
  /** Names the mail's copies (email log, outbox) for erase and export by email. */
  mail_id: z.string().max(100),
  to: z.string().max(254),
  subject: z.string().max(300),
  text: z.string().max(20_000),
  attempt: z.number().int().min(0).max(100),
});

/** A `send_visitor_mail` job. */
export type SendVisitorMailJob = z.infer<typeof sendVisitorMailJobSchema>;
/** A `send_account_mail` job. */
export type SendAccountMailJob = z.infer<typeof sendAccountMailJobSchema>;
/** A `send_email` job. */
export type SendEmailJob = z.infer<typeof sendEmailJobSchema>;
/** A `deliver_webhook` job. */
export type DeliverWebhookJob = z.infer<typeof deliverWebhookJobSchema>;
