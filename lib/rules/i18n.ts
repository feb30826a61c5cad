/**
 * Languages: which one a visitor gets (`?lang=`, then the best `Accept-Language` the form
 * has, then its default), whether it is written right to left, and validation messages
 * and hosted page texts in it through `i18next` (shipped: en, de, fr, es, ar; any other
 * falls back to English). A message names the field by its label in that language.
 * @module
 */
import i18next, { type i18n } from "i18next";
import { AR } from "./languages/ar.ts";
import { DE } from "./languages/de.ts";
import { ES } from "./languages/es.ts";
import { FR } from "./languages/fr.ts";
import { tickLabel } from "./checks.ts";
import type { MessageFormatter } from "./evaluate.ts";
import { type Catalogue, EN, type MessageId, UI_EN, type UiTextId } from "./messages_en.ts";
import type { Issue, RuleForm } from "./types.ts";

const CATALOGUES: Record<string, Catalogue> = {
  en: { messages: EN, ui: UI_EN },
  de: DE,
  fr: FR,
  es: ES,
  ar: AR,
};

/** The languages whose messages and page texts ship with Formwell. */
export const SHIPPED_LANGUAGES: readonly string[] = Object.keys(CATALOGUES);

/** Languages written right to left (by their primary subtag). */
const RTL = new Set(["ar", "he", "fa", "ur"]);

let instance: i18n | null = null;

/** The one i18next instance, made on first use (nothing runs at import time). */
function translator(): i18n {
  if (instance) return instance;
  const made = i18next.createInstance();
  made.init({
    initAsync: false,
    resources: Object.fromEntries(
      Object.entries(CATALOGUES).map(([lang, c]) => [lang, { messages: c.messages, ui: c.ui }]),
    ),
    ns: ["messages", "ui"],
    defaultNS: "messages",
    fallbackLng: "en",
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  return instance = made;
}

/** Whether `lang` is written right to left (Arabic, Hebrew, Persian, Urdu). */
export function isRtl(lang: string): boolean {
  return RTL.has(lang.split("-")[0].toLowerCase());
}

/** The languages a form has texts in: its default first, then its translations. */
export function formLanguages(form: Pick<RuleForm, "default_language" | "translations">): string[] {
  const base = form.default_language ?? "en";
  return [base, ...Object.keys(form.translations ?? {}).filter((l) => l !== base)];
}

/** The form's language matching `wanted` exactly, else by primary subtag, or null. */
function match(languages: string[], wanted: string): string | null {
  const w = wanted.trim().toLowerCase();
  if (!w || w === "*") return null;
  const exact = languages.find((l) => l.toLowerCase() === w);
  if (exact) return exact;
  const primary = w.split("-")[0];
  return languages.find((l) => l.toLowerCase().split("-")[0] === primary) ?? null;
}

/** The ranges of an `Accept-Language` header, best first (`q=0` left out). */
export function acceptedLanguages(header: string | null | undefined): string[] {
  if (!header) return [];
  return header.split(",").slice(0, 20).map((part, i) => {
    const [range, ...params] = part.trim().split(";");
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    return { range: range.trim(), q: q ? Number(q[1]) : 1, i };
  }).filter((r) => r.range && r.q > 0).sort((a, b) => b.q - a.q || a.i - b.i).map((r) => r.range);
}

/**
 * The language a visitor gets: `queryLang` (`?lang=`) when the form has it, else the best
 * `Accept-Language` range the form has, else the form's default.
 */
export function pickLanguage(
  form: Pick<RuleForm, "default_language" | "translations">,
  queryLang?: string | null,
  acceptLanguage?: string | null,
): string {
  const languages = formLanguages(form);
  if (languages.length === 1) return languages[0];
  for (const wanted of [queryLang ?? "", ...acceptedLanguages(acceptLanguage)]) {
    const found = match(languages, wanted);
    if (found) return found;
  }
  return languages[0];
}

/** A field's label in `lang` (its translation, else its own label, else its name). */
export function labelIn(
  lang: string,
  form: Pick<RuleForm, "translations"> | null,
  field: { name: string; label?: string },
): string {
  return form?.translations?.[lang]?.fields?.[field.name]?.label || field.label || field.name;
}

/** Builds messages in `lang`, naming fields by their labels in that language. */
export function formatterFor(
  lang: string,
  form: Pick<RuleForm, "translations"> | null = null,
): MessageFormatter {
  const t = translator();
  return (id, params, field) => {
    const label = field ? labelIn(lang, form, field) : undefined;
    const values = label === undefined
      ? params
      : { ...params, label: id === "tick" ? tickLabel(label) : label };
    return t.t(id, { lng: lang, ns: "messages", ...values });
  };
}

/** An issue's message in `lang` (the issue keeps its `type`, which never changes). */
export function messageFor(
  lang: string,
  issue: Issue,
  form: Pick<RuleForm, "translations" | "fields"> | null = null,
): string {
  if (!issue.messageId) return issue.message;
  const field = form?.fields.find((f) => f.name === issue.field) ?? null;
  return formatterFor(lang, form)(issue.messageId, issue.params ?? {}, field);
}

/** A hosted page text (`submit`, `next`, `step`...) in `lang`. */
export function uiText(
  lang: string,
  id: UiTextId,
  params: Record<string, string | number> = {},
): string {
  return translator().t(id, { lng: lang, ns: "ui", ...params });
}

/** The 422 summary line in `lang`. */
export function summaryIn(lang: string): string {
  return translator().t("summary" satisfies MessageId, { lng: lang, ns: "messages" });
}
