/**
 * What a destination message says, whatever the service: a title, the submission's number,
 * status and time, its fields (labelled as in the form, values as text, files by name) and
 * a link to it in the admin. Each service's renderer bounds and escapes it its own way;
 * {@linkcode fit} is their shared clipper.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { adminLink, valueText } from "../email.ts";
import type { NotifyEvent } from "../events.ts";
import { count } from "@/components/count.ts";

/** One field of a message: the form's label (or the field name) and the value as text. */
export interface MessageField {
  label: string;
  value: string;
}

/** A submission event as a chat message, before any service's shape. */
export interface Message {
  /** One line: what happened, to which form. */
  title: string;
  /** A plain-language line for a test message; absent for submissions. */
  note?: string;
  /** Submission number, status and time; absent for a test message. */
  number?: number;
  status?: string;
  at: string;
  fields: MessageField[];
  /** The submission in the admin (a test message: the webhooks page). */
  link: string;
  /** The link's label. */
  linkLabel: string;
}

const TITLES: Record<NotifyEvent["type"], string> = {
  "submission.created": "New submission",
  "submission.status_changed": "Submission marked",
  "submission.deleted": "Submission deleted",
  "webhook.test": "Test message",
  "email.test": "Test message",
};

/** The message of a stored event (links point to the admin at `config.baseUrl`). */
export function messageOf(deps: Pick<Deps, "config">, e: NotifyEvent): Message {
  const s = e.submission;
  if (!s) {
    return {
      title: "Test message from Formwell",
      note: "This destination works: new submissions will be posted here.",
      at: e.at,
      fields: [],
      link: `${deps.config.baseUrl}/admin/webhooks`,
      linkLabel: "Open Formwell",
    };
  }
  const names = [...new Set([...e.form.fields.map((f) => f.name), ...Object.keys(s.fields)])]
    .filter((k) => Object.hasOwn(s.fields, k));
  const fields = names.map((name) => ({
    label: e.form.fields.find((f) => f.name === name)?.label ?? name,
    value: valueText(s.fields[name]),
  }));
  const what = e.type === "submission.status_changed"
    ? `${TITLES[e.type]} ${s.status}`
    : TITLES[e.type];
  return {
    title: `${what} #${s.submission_number} to ${e.form.name}`,
    number: s.submission_number,
    status: s.status,
    at: s.created_at,
    fields,
    link: adminLink(deps, e.form, s),
    linkLabel: "View it in Formwell",
  };
}

/**
 * `raw` escaped by `esc` (one character at a time) in at most `max` UTF-16 units, cut on a
 * character boundary and marked with "…" when it did not fit.
 */
export function fit(raw: string, max: number, esc: (ch: string) => string = (c) => c): string {
  let out = "";
  const chars = [...raw];
  for (const [i, ch] of chars.entries()) {
    const e = esc(ch);
    const room = i === chars.length - 1 ? max : max - 1;
    if (out.length + e.length > room) return `${out}…`;
    out += e;
  }
  return out;
}

/** The number of fields a renderer left out, as a closing line (empty when none). */
export function moreFields(n: number): string {
  return n > 0 ? `…and ${count(n, "more field")}: see the submission in Formwell.` : "";
}
