/**
 * A form's `notifications` settings (CONTRACT "Notifications"): owner emails, subject
 * template, reply-to field, which statuses notify, and the autoresponder.
 * @module
 */
import { z } from "zod";

const noNewline = (max: number) =>
  z.string().max(max).refine((v) => !/[\r\n]/.test(v), "must not contain line breaks");

/** The `notifications` object of a form definition. */
export const notificationsSchema = z
  .object({
    emails: z.array(z.email().max(254)).max(10).default([]),
    subject: noNewline(300).default("New submission to {form}"),
    reply_to_field: z.string().max(100).nullable().optional(),
    notify_suspicious: z.boolean().default(true),
    notify_spam: z.boolean().default(false),
    autoresponder: z
      .object({
        enabled: z.boolean().default(false),
        email_field: z.string().max(100),
        subject: noNewline(300).default("Thanks"),
        text: z.string().max(10_000).default("We got it."),
      })
      .strict()
      .optional(),
  })
  .strict();
/** Stored notification settings. */
export type Notifications = z.output<typeof notificationsSchema>;

/**
 * Problems of settings against the form's fields: `reply_to_field` and the autoresponder's
 * `email_field` must name an email-type field. Returns [path, message] pairs.
 */
export function notificationFieldProblems(
  n: Notifications | undefined | null,
  fields: { name: string; type: string }[],
): [string[], string][] {
  if (!n) return [];
  const out: [string[], string][] = [];
  const isEmail = (name: string) => fields.some((f) => f.name === name && f.type === "email");
  if (n.reply_to_field && !isEmail(n.reply_to_field)) {
    out.push([["notifications", "reply_to_field"], "must name an email field of the form"]);
  }
  const a = n.autoresponder;
  if (a && !isEmail(a.email_field)) {
    out.push([["notifications", "autoresponder", "email_field"], "must name an email field"]);
  }
  return out;
}
