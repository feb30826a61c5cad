/**
 * Renders notification emails: the subject and autoresponse templates (one placeholder
 * filler for all), the reply-to address, and the plain-text and HTML bodies (fields as a
 * table, every value escaped, files as signed download links, a link to the submission in
 * the admin). Header values never carry CR/LF or other control characters.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import type { Form } from "@/lib/schemas.ts";
import type { PublicSubmission } from "@/lib/submissions/query.ts";
import { fileKey } from "@/lib/uploads/grants.ts";

/** Lifetime of the file links in a notification email: 7 days. */
export const EMAIL_LINK_TTL_SEC = 7 * 24 * 3600;
const MAX_SUBJECT = 300;

/** A rendered email, before the recipients. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
  replyTo?: string;
}

/** One line, no control characters (CR/LF included), at most `max` characters. */
export function headerSafe(v: string, max = MAX_SUBJECT): string {
  let clean = "";
  for (const ch of v) {
    const c = ch.codePointAt(0)!;
    clean += c < 0x20 || c === 0x7f || c === 0x2028 || c === 0x2029 ? " " : ch;
  }
  clean = clean.replace(/\s+/g, " ").trim();
  // Counted in characters (code points), so a cut never splits a surrogate pair.
  const chars = Array.from(clean);
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : clean;
}

/** HTML-escapes text. */
export function escapeHtml(v: string): string {
  return v.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

function isFileRef(
  v: unknown,
): v is { path: string; originalFilename?: string; mimeType?: string } {
  return !!v && typeof v === "object" && typeof (v as { path?: unknown }).path === "string";
}

/** A field value as one string: arrays joined, files by name. */
export function valueText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (Array.isArray(v)) return v.map(valueText).join(", ");
  if (isFileRef(v)) return v.originalFilename ?? v.path;
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** The placeholders subjects and autoresponse texts take, with what each fills in. */
export const PLACEHOLDERS: readonly [string, string][] = [
  ["{form}", "the form's name"],
  ["{field:NAME}", "the value of field NAME"],
  ["{number}", "the submission number"],
];

/**
 * Fills `{form}` (the form's name), `{number}` (the submission number) and `{field:NAME}` (a
 * field's value; an unknown field is empty), each filled value passed through `clean`.
 */
function fillPlaceholders(
  template: string,
  form: Pick<Form, "name">,
  s: PublicSubmission | null,
  clean: (value: string) => string = (v) => v,
): string {
  return template.replace(/\{(form|number|field:([^}]+))\}/g, (_m, what, name) => {
    if (what === "form") return clean(form.name);
    if (what === "number") return s ? String(s.submission_number) : "";
    return s && Object.hasOwn(s.fields, name) ? clean(valueText(s.fields[name])) : "";
  });
}

/** A subject template filled: one header-safe line of at most 300 characters. */
function renderSubject(template: string, form: Form, s: PublicSubmission | null): string {
  return headerSafe(fillPlaceholders(template, form, s));
}

/** A single plain address (no display name, no list, no control characters), or null. */
export function plainAddress(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const a = v.trim();
  return a.length <= 254 &&
      /^[^\s@,;<>"()\\[\]:]+@[^\s@,;<>"()\\[\]:]+\.[^\s@,;<>"()\\[\]:]+$/.test(a)
    ? a
    : null;
}

/** The admin page of a submission. */
export function adminLink(
  deps: Pick<Deps, "config">,
  form: Pick<Form, "id">,
  s: Pick<PublicSubmission, "id">,
): string {
  return `${deps.config.baseUrl}/admin/forms/${encodeURIComponent(form.id)}/submissions/${
    encodeURIComponent(s.id)
  }`;
}

async function fileLinks(
  deps: Pick<Deps, "storage">,
  value: unknown,
): Promise<{ name: string; url: string }[]> {
  const refs = (Array.isArray(value) ? value : [value]).filter(isFileRef);
  const out: { name: string; url: string }[] = [];
  for (const r of refs) {
    const name = r.originalFilename ?? r.path;
    const signed = await deps.storage.signDownload(fileKey(r.path), {
      filename: name,
      contentType: typeof r.mimeType === "string" ? r.mimeType : "application/octet-stream",
      ttlSec: EMAIL_LINK_TTL_SEC,
    });
    out.push({ name, url: signed.url });
  }
  return out;
}

/**
 * The owner notification for a submission. A post's own subject (`_subject`, taken as
 * written: no placeholders) replaces the form's subject template, after the spam mark; the
 * form's reply-to field wins over the post's `_replyto`. A `test` one (the admin's test send,
 * with sample values) is marked "[Test]" and links to the form's Integrations tab.
 */
export async function renderOwnerMail(
  deps: Pick<Deps, "config" | "storage">,
  form: Form,
  s: PublicSubmission,
  posted?: { subject?: string; reply_to?: string },
  test = false,
): Promise<RenderedMail> {
  const n = form.notifications;
  const mark = test
    ? "[Test] "
    : s.status === "suspicious"
    ? "[Suspicious] "
    : s.status === "spam"
    ? "[Spam] "
    : "";
  const subject = headerSafe(
    mark +
      (posted?.subject
        ? headerSafe(posted.subject)
        : renderSubject(n?.subject ?? "New submission to {form}", form, s)),
  );
  const link = test
    ? `${deps.config.baseUrl}/admin/forms/${encodeURIComponent(form.id)}/integrations`
    : adminLink(deps, form, s);
  const names = [...new Set([...form.fields.map((f) => f.name), ...Object.keys(s.fields)])]
    .filter((k) => Object.hasOwn(s.fields, k));
  const textRows: string[] = [];
  const htmlRows: string[] = [];
  for (const name of names) {
    const label = form.fields.find((f) => f.name === name)?.label ?? name;
    const v = s.fields[name];
    const files = await fileLinks(deps, v);
    if (files.length) {
      textRows.push(`${label}: ${files.map((f) => `${f.name} <${f.url}>`).join(", ")}`);
      const cells = files.map((f) => `<a href="${escapeHtml(f.url)}">${escapeHtml(f.name)}</a>`)
        .join("<br>");
      htmlRows.push(`<tr><th align="left">${escapeHtml(label)}</th><td>${cells}</td></tr>`);
    } else {
      const text = valueText(v);
      textRows.push(`${label}: ${text}`);
      htmlRows.push(
        `<tr><th align="left" valign="top">${
          escapeHtml(label)
        }</th><td style="white-space:pre-wrap">${escapeHtml(text)}</td></tr>`,
      );
    }
  }
  const head = `${mark}Submission #${s.submission_number} to ${form.name} (${s.status})`;
  const text = `${head}\n\n${textRows.join("\n")}\n\nView it in the admin: ${link}\n`;
  const html = `<!doctype html><html><body><p>${escapeHtml(head)}</p>` +
    `<table cellpadding="4" border="1" style="border-collapse:collapse">${
      htmlRows.join("")
    }</table>` +
    `<p><a href="${escapeHtml(link)}">View it in the admin</a></p></body></html>`;
  const replyField = n?.reply_to_field;
  const replyTo = (replyField ? plainAddress(s.fields[replyField]) : null) ??
    plainAddress(posted?.reply_to) ?? undefined;
  return { subject, text, html, replyTo };
}

/** Characters a visitor's value fills into an autoresponse text at most (on one line). */
export const TEXT_VALUE_MAX = 200;

/**
 * The autoresponse to the submitter: subject and text filled like the owner subject. In the
 * text each visitor value stays on one line of at most 200 characters, so it cannot pose as
 * the owner's own paragraphs; the HTML part is the text, escaped.
 */
export function renderAutoresponse(form: Form, s: PublicSubmission): RenderedMail {
  const a = form.notifications?.autoresponder;
  const subject = renderSubject(a?.subject ?? "Thanks", form, s);
  const text = fillPlaceholders(
    a?.text ?? "We got it.",
    form,
    s,
    (v) => headerSafe(v, TEXT_VALUE_MAX),
  );
  const html = `<!doctype html><html><body><p style="white-space:pre-wrap">${
    escapeHtml(text)
  }</p></body></html>`;
  return { subject, text, html };
}
