/**
 * The form editor's notification settings: the posted inputs as the raw `notifications`
 * object the form schema validates (lib/notify/settings.ts), and back for showing.
 * @module
 */
import type { Notifications } from "@/lib/notify/settings.ts";
import type { FormDefinition } from "@/lib/schemas.ts";

/** What the editor shows in its "Notifications" section (strings where it edits text). */
export interface NotificationInputs {
  emails: string;
  subject: string;
  reply_to_field: string;
  notify_suspicious: boolean;
  notify_spam: boolean;
  auto_enabled: boolean;
  auto_email_field: string;
  auto_subject: string;
  auto_text: string;
}

/** The editor's inputs for stored settings (defaults when there are none). */
export function notificationInputs(
  n: FormDefinition["notifications"] | null,
): NotificationInputs {
  return {
    emails: (n?.emails ?? []).join("\n"),
    subject: n?.subject ?? "New submission to {form}",
    reply_to_field: n?.reply_to_field ?? "",
    notify_suspicious: n?.notify_suspicious ?? true,
    notify_spam: n?.notify_spam ?? false,
    auto_enabled: n?.autoresponder?.enabled ?? false,
    auto_email_field: n?.autoresponder?.email_field ?? "",
    auto_subject: n?.autoresponder?.subject ?? "Thanks",
    auto_text: n?.autoresponder?.text ?? "We got it.",
  };
}

/**
 * The posted settings as a raw `notifications` object for the schema, or `keep` when the
 * post has no notifications section (a hand-made post keeps what is stored). No emails and
 * no autoresponder means no notifications (undefined).
 */
export function notificationsFromPost(
  body: URLSearchParams,
  keep: Notifications | null | undefined,
): FormDefinition["notifications"] {
  if (body.get("notify_section") !== "1") return keep ?? undefined;
  const s = (name: string) => (body.get(name) ?? "").trim();
  const emails = s("notify_emails").split(/[\r\n,;]+/).map((e) => e.trim()).filter(Boolean);
  const autoOn = body.get("auto_enabled") === "on";
  const autoField = s("auto_email_field");
  if (emails.length === 0 && !autoOn) return undefined;
  return {
    emails,
    subject: s("notify_subject") || undefined,
    reply_to_field: s("reply_to_field") || null,
    notify_suspicious: body.get("notify_suspicious") === "on",
    notify_spam: body.get("notify_spam") === "on",
    ...(autoOn || autoField
      ? {
        autoresponder: {
          enabled: autoOn,
          email_field: autoField,
          subject: s("auto_subject") || undefined,
          text: (body.get("auto_text") ?? "").trim() || undefined,
        },
      }
      : {}),
  };
}
