/**
 * The form editor's "Notifications" section: owner emails, subject, reply-to, which statuses
 * notify, and the autoresponder, each template input saying which placeholders it takes.
 * @module
 */
import { type ComponentChildren, Fragment } from "preact";
import { notificationInputs } from "@/lib/admin/notify_settings.ts";
import { AUTORESPONDER_LIMITS_TEXT } from "@/lib/notify/autoresponder.ts";
import { PLACEHOLDERS, TEXT_VALUE_MAX } from "@/lib/notify/email.ts";
import type { FormDefinition } from "@/lib/schemas.ts";

/** The placeholders a subject or text takes, in words. */
function Placeholders() {
  return (
    <>
      Placeholders: {PLACEHOLDERS.map(([code, meaning], i) => (
        <Fragment key={code}>
          {i > 0 && ", "}
          <code>{code}</code> {meaning}
        </Fragment>
      ))}.
    </>
  );
}

/** A one-line text input with its label and help, in a grid cell. */
function TextInput(
  { id, name, label, value, maxLength = 300, children }: {
    id: string;
    name: string;
    label: string;
    value: string;
    maxLength?: number;
    children: ComponentChildren;
  },
) {
  return (
    <div>
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        type="text"
        maxLength={maxLength}
        value={value}
        aria-describedby={`${id}-help`}
      />
      <p class="help" id={`${id}-help`}>{children}</p>
    </div>
  );
}

/** The "Notifications" section of the form editor. */
export function NotificationSettings({ def }: { def: FormDefinition }) {
  const n = notificationInputs(def.notifications ?? null);
  const emailFields = (def.fields ?? []).filter((f) => f.type === "email").map((f) => f.name);
  const fieldHelp = emailFields.length
    ? `The name of an email field: ${emailFields.join(", ")}.`
    : "The name of an email field (this form has none yet).";
  return (
    <section aria-labelledby="notify-head">
      <h2 id="notify-head">Notifications</h2>
      <input type="hidden" name="notify_section" value="1" />
      <label for="notify-emails">Email each submission to</label>
      <textarea
        id="notify-emails"
        name="notify_emails"
        rows={2}
        placeholder="owner@example.com"
        aria-describedby="notify-emails-help"
      >
        {n.emails}
      </textarea>
      <p class="help" id="notify-emails-help">
        Up to 10 addresses, one per line. Empty sends no email. Without SMTP the mail is kept in the
        Outbox.
      </p>
      <div class="row2">
        <TextInput id="notify-subject" name="notify_subject" label="Subject" value={n.subject}>
          <Placeholders /> Sent as one line.
        </TextInput>
        <TextInput
          id="reply-to"
          name="reply_to_field"
          label="Reply-to field"
          value={n.reply_to_field}
          maxLength={100}
        >
          {fieldHelp} Empty: no Reply-To.
        </TextInput>
      </div>
      <label class="check">
        <input type="checkbox" name="notify_suspicious" checked={n.notify_suspicious} />{" "}
        Also email suspicious submissions (marked in the subject)
      </label>
      <label class="check">
        <input type="checkbox" name="notify_spam" checked={n.notify_spam} />{" "}
        Also email submissions judged spam
      </label>
      <fieldset>
        <legend>Autoresponder</legend>
        <label class="check">
          <input
            type="checkbox"
            name="auto_enabled"
            checked={n.auto_enabled}
            aria-describedby="auto-limits-help"
          />{" "}
          Send the submitter a reply
        </label>
        <p class="help" id="auto-limits-help">{AUTORESPONDER_LIMITS_TEXT}</p>
        <div class="row2">
          <TextInput
            id="auto-field"
            name="auto_email_field"
            label="Submitter's email field"
            value={n.auto_email_field}
            maxLength={100}
          >
            {fieldHelp}
          </TextInput>
          <TextInput
            id="auto-subject"
            name="auto_subject"
            label="Reply subject"
            value={n.auto_subject}
          >
            <Placeholders /> Sent as one line.
          </TextInput>
        </div>
        <label for="auto-text">Reply text</label>
        <textarea
          id="auto-text"
          name="auto_text"
          rows={3}
          maxLength={10000}
          aria-describedby="auto-text-help"
        >
          {n.auto_text}
        </textarea>
        <p class="help" id="auto-text-help">
          <Placeholders /> Plain text; each value a visitor typed is put on one line of at most{" "}
          {TEXT_VALUE_MAX} characters.
        </p>
      </fieldset>
    </section>
  );
}
