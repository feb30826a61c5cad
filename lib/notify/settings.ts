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

/** An address as the audit log keeps it: the first character of the local part, and the domain. */
export function maskedAddress(address: string): string {
  const at = address.lastIndexOf("@");
  return at > 0 ? `${address[0]}…${address.slice(at)}` : "…";
}

/** Settings as the audit log compares them; absent settings are the defaults. */
function comparable(n: Notifications | null | undefined) {
  const d = notificationsSchema.parse({});
  const a = n?.autoresponder;
  return {
    emails: [...new Set((n?.emails ?? []).map((e) => e.toLowerCase()))].sort(),
    subject: n?.subject ?? d.subject,
    reply_to_field: n?.reply_to_field ?? null,
    notify_suspicious: n?.notify_suspicious ?? d.notify_suspicious,
    notify_spam: n?.notify_spam ?? d.notify_spam,
    "autoresponder.enabled": a?.enabled ?? false,
    "autoresponder.email_field": a?.email_field ?? null,
    "autoresponder.subject": a?.subject ?? null,
    "autoresponder.text": a?.text ?? null,
  };
}

/** Settings whose new value the audit details show (switches and field names, never text). */
const SHOWN = [
  "reply_to_field",
  "notify_suspicious",
  "notify_spam",
  "autoresponder.enabled",
  "autoresponder.email_field",
] as const;

/**
 * What changed between two settings, as audit details: `changed` names each setting, owner
 * addresses added or removed are masked, switches and field names show their new value;
 * subject and text are only named. Null when nothing changed.
 */
export function notificationChanges(
  before: Notifications | null | undefined,
  after: Notifications | null | undefined,
): Record<string, unknown> | null {
  const b = comparable(before);
  const a = comparable(after);
  const changed = (Object.keys(a) as (keyof typeof a)[])
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
  if (changed.length === 0) return null;
  const details: Record<string, unknown> = { changed };
  if (changed.includes("emails")) {
    details.emails_added = a.emails.filter((e) => !b.emails.includes(e)).map(maskedAddress);
    details.emails_removed = b.emails.filter((e) => !a.emails.includes(e)).map(maskedAddress);
  }
  for (const k of SHOWN) if (changed.includes(k)) details[k] = a[k];
  return details;
}
