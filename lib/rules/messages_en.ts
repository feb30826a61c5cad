/**
 * The English validation messages, keyed by message id (several ids share one `type`:
 * a number's `min` and a date's `min` read differently). `{{name}}` marks a parameter.
 * Every other language's catalogue has the same keys (lib/rules/languages/).
 * @module
 */

/** Message ids. */
export type MessageId = keyof typeof EN;

/** The English catalogue. */
export const EN = {
  required: "{{label}} is required.",
  tick: "Please tick “{{label}}”.",
  unknown_field: "Unknown field '{{name}}'.",
  file_ref: "{{label}} must be a file reference {path, ...}.",
  file_kind: "{{label}} does not accept this file type.",
  file_size: "{{label}} accepts files up to {{max}}.",
  file_empty: "{{label}}: the file is empty.",
  number: "{{label}} must be a number.",
  integer: "{{label}} must be a whole number.",
  number_min: "{{label}} must be at least {{min}}.",
  number_max: "{{label}} must be at most {{max}}.",
  boolean: "{{label}} must be true or false.",
  string: "{{label}} must be a string.",
  option: "{{label}} must be one of the listed options.",
  list: "{{label}} must be a list of strings.",
  list_twice: "{{label}} lists an option twice.",
  list_options: "{{label}} must only hold the listed options.",
  list_min: "{{label}} needs at least {{min}} choices.",
  list_max: "{{label}} allows at most {{max}} choices.",
  length_min: "{{label}} must be at least {{min}} characters.",
  length_max: "{{label}} must be at most {{max}} characters.",
  pattern: "{{label}} is not in the expected format.",
  date_min: "{{label}} must be on or after {{min}}.",
  date_max: "{{label}} must be on or before {{max}}.",
  email: "{{label}} must be a valid email address.",
  url: "{{label}} must be a valid URL.",
  url_scheme: "{{label}} must be an http(s) URL.",
  tel: "{{label}} must be a phone number.",
  date: "{{label}} must be a date (YYYY-MM-DD).",
  datetime: "{{label}} must be a date and time (ISO 8601).",
  summary: "The submission has invalid fields.",
} as const;

/** The hosted page's own texts in English (buttons, progress, status lines). */
export const UI_EN = {
  submit: "Send",
  next: "Next",
  back: "Back",
  step: "Step {{n}} of {{total}}",
  sending: "Sending…",
  sending_status: "Sending your response…",
  queued:
    "You are offline. Your response is saved on this device and will be sent when the connection is back.",
  success: "Thank you! Your response was received.",
  fix: "Please correct the fields marked below.",
  optional: "optional",
  checking: "Checking…",
  required_note: "Fields marked {{mark}} are required.",
  required_mark: "with an asterisk",
  choose: "Choose…",
  correct_one: "Please correct 1 field.",
  correct_many: "Please correct {{n}} fields.",
  thanks: "Thank you",
  received: "Your response to “{{form}}” was received.",
  reference: "Reference:",
  another: "Send another response",
  powered: "Powered by Formwell",
  closed: "This form is not accepting responses right now.",
  draft_notice:
    "Your answers are saved as you type (kept for {{days}} days), so you can finish later.",
  draft_files: "Files are not saved: you choose them again when you come back.",
  draft_saving: "Saving…",
  draft_saved: "Saved",
  draft_offline: "Not saved: you are offline",
  draft_error: "Not saved",
  draft_link: "Email me a link to finish later",
  draft_send_link: "Send link",
  draft_sent: "We sent a link to {{email}}. It works for {{days}} days.",
  draft_not_yet: "Your progress could not be saved yet. Try again in a moment.",
  draft_bad_email: "Please enter a valid email address.",
  draft_link_failed: "The link could not be sent. Try again later.",
  form_changed: "This form changed since you opened it. Check your answers and send it again.",
  key_reused:
    "This page already sent a response with different answers. Send again to submit these answers as a new response.",
  files_again: "Choose your files again.",
  went_wrong: "Something went wrong.",
  upload_failed: "The file could not be uploaded.",
} as const;

/** A hosted page text id. */
export type UiTextId = keyof typeof UI_EN;

/** One language's catalogue: every message id and every page text. */
export interface Catalogue {
  messages: Record<MessageId, string>;
  ui: Record<UiTextId, string>;
}

/** Fills `{{name}}` parameters of a message template. */
export function fill(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (m, k: string) => k in params ? String(params[k]) : m);
}
