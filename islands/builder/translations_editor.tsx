/**
 * The builder's languages: the default language, and per added language the form's title,
 * submit and success texts, every step's title, and every field's label, help, placeholder
 * and option texts, each beside the default text, with a count of what is still missing.
 * @module
 */
import { useState } from "preact/hooks";
import type { Row } from "./model.ts";

/** Texts of one field in one language. */
export interface FieldTexts {
  label?: string;
  help?: string;
  placeholder?: string;
  options?: Record<string, string>;
}

/** Texts of one language (CONTRACT `translations[LANG]`). */
export interface LanguageTexts {
  form?: { title?: string; submit?: string; success?: string };
  fields?: Record<string, FieldTexts>;
  /** A step's title in the default language to its text in this one. */
  steps?: Record<string, string>;
}

/** All languages' texts. */
export type Translations = Record<string, LanguageTexts>;

/** The default language's texts the translations stand beside. */
export interface DefaultTexts {
  title: string;
  submit: string;
  success: string;
}

/** One translatable text: where it goes, and its default-language original. */
interface Slot {
  id: string;
  label: string;
  original: string;
  get: (t: LanguageTexts) => string | undefined;
  set: (t: LanguageTexts, v: string) => LanguageTexts;
}

function setForm(t: LanguageTexts, k: "title" | "submit" | "success", v: string): LanguageTexts {
  const form = { ...t.form, [k]: v || undefined };
  return { ...t, form };
}

function setField(t: LanguageTexts, name: string, change: Partial<FieldTexts>): LanguageTexts {
  const fields = { ...t.fields, [name]: { ...t.fields?.[name], ...change } };
  return { ...t, fields };
}

/** Every text the form shows in its default language, as slots a translation fills. */
function slotsOf(rows: Row[], texts: DefaultTexts, steps: string[]): Slot[] {
  const out: Slot[] = [
    ...(["title", "submit", "success"] as const).map((k) => ({
      id: `form-${k}`,
      label: { title: "Form title", submit: "Submit button", success: "Success message" }[k],
      // The form always has a title and a submit button, even before they are typed.
      original: texts[k] || (k === "title" ? "(the form's name)" : ""),
      get: (t: LanguageTexts) => t.form?.[k],
      set: (t: LanguageTexts, v: string) => setForm(t, k, v),
    })),
  ];
  const titles = [...new Set(steps.map((s) => s.trim()).filter(Boolean))];
  titles.forEach((title, i) =>
    out.push({
      id: `step-${i}`,
      label: `Step “${title}”: title`,
      original: title,
      get: (t) => t.steps?.[title],
      set: (t, v) => ({ ...t, steps: { ...t.steps, [title]: v } }),
    })
  );
  for (const r of rows) {
    const name = r.name.trim();
    if (!name || r.type === "hidden") continue;
    const who = r.label || name;
    for (const k of ["label", "help", "placeholder"] as const) {
      const original = k === "label" ? (r.label || name) : r[k];
      if (k !== "label" && !original.trim()) continue;
      out.push({
        id: `${r.key}-${k}`,
        label: `${who}: ${k}`,
        original,
        get: (t) => t.fields?.[name]?.[k],
        set: (t, v) => setField(t, name, { [k]: v || undefined }),
      });
    }
    for (const o of r.rules.options.split("\n").map((s) => s.trim()).filter(Boolean)) {
      if (!["select", "multiselect", "radio"].includes(r.type)) break;
      out.push({
        id: `${r.key}-opt-${o}`,
        label: `${who}: option “${o}”`,
        original: o,
        get: (t) => t.fields?.[name]?.options?.[o],
        set: (t, v) =>
          setField(t, name, { options: { ...t.fields?.[name]?.options, [o]: v || "" } }),
      });
    }
  }
  return out;
}

/** How many of a language's texts are still missing. */
export function missingCount(
  rows: Row[],
  texts: DefaultTexts,
  steps: string[],
  lang: LanguageTexts,
): number {
  return slotsOf(rows, texts, steps).filter((s) => s.original.trim() && !s.get(lang)?.trim())
    .length;
}

/**
 * The translations without empty texts, and option texts and step titles only for options
 * and steps that exist.
 */
export function cleanTranslations(t: Translations, rows: Row[], steps: string[]): Translations {
  const titles = steps.map((s) => s.trim());
  const out: Translations = {};
  for (const [lang, texts] of Object.entries(t)) {
    const form = Object.fromEntries(
      Object.entries(texts.form ?? {}).filter(([, v]) => typeof v === "string" && v.trim()),
    );
    const fields: Record<string, FieldTexts> = {};
    for (const r of rows) {
      const name = r.name.trim();
      const ft = texts.fields?.[name];
      if (!ft) continue;
      const kept: FieldTexts = {};
      for (const k of ["label", "help", "placeholder"] as const) {
        if (ft[k]?.trim()) kept[k] = ft[k]!.trim();
      }
      const values = r.rules.options.split("\n").map((s) => s.trim());
      const options = Object.fromEntries(
        Object.entries(ft.options ?? {}).filter(([v, text]) => values.includes(v) && text.trim()),
      );
      if (Object.keys(options).length) kept.options = options;
      if (Object.keys(kept).length) fields[name] = kept;
    }
    const stepTexts = Object.fromEntries(
      Object.entries(texts.steps ?? {}).filter(([title, text]) =>
        titles.includes(title) && text.trim()
      ).map(([title, text]) => [title, text.trim()]),
    );
    out[lang] = {
      ...(Object.keys(form).length ? { form } : {}),
      ...(Object.keys(fields).length ? { fields } : {}),
      ...(Object.keys(stepTexts).length ? { steps: stepTexts } : {}),
    };
  }
  return out;
}

/** The translations after the field `from` was renamed `to`. */
export function renameInTranslations(t: Translations, from: string, to: string): Translations {
  if (!from || from === to) return t;
  return Object.fromEntries(
    Object.entries(t).map(([lang, texts]) => {
      if (!texts.fields?.[from]) return [lang, texts];
      const { [from]: moved, ...rest } = texts.fields;
      return [lang, { ...texts, fields: { ...rest, [to]: moved } }];
    }),
  );
}

const LANG = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/;

/** The languages section of the builder. */
export function TranslationsEditor(
  { rows, steps, texts, translations, defaultLanguage, onChange, onDefaultLanguage }: {
    rows: Row[];
    /** The steps' titles in the default language. */
    steps: string[];
    texts: DefaultTexts;
    translations: Translations;
    defaultLanguage: string;
    onChange: (t: Translations) => void;
    onDefaultLanguage: (lang: string) => void;
  },
) {
  const [adding, setAdding] = useState("");
  const [open, setOpen] = useState<string | null>(null);
  const langs = Object.keys(translations).sort();
  const slots = slotsOf(rows, texts, steps);
  const addOk = LANG.test(adding.trim()) && !langs.includes(adding.trim()) &&
    adding.trim() !== defaultLanguage;
  return (
    <section class="translations-editor" aria-labelledby="languages-heading">
      <h3 id="languages-heading">Languages</h3>
      <div class="row2">
        <div>
          <label for="default-language">Language of the texts above</label>
          <input
            id="default-language"
            type="text"
            value={defaultLanguage}
            aria-describedby="default-language-help"
            onInput={(e) => onDefaultLanguage(e.currentTarget.value.trim())}
          />
          <p class="help" id="default-language-help">
            A code such as en, de or ar. Visitors get the language they ask for (<code>?lang=</code>
            {" "}
            or their browser's), else this one.
          </p>
        </div>
        <div>
          <label for="add-language">Add a language</label>
          <input
            id="add-language"
            type="text"
            placeholder="de"
            value={adding}
            onInput={(e) => setAdding(e.currentTarget.value)}
          />
          <button
            type="button"
            class="secondary small"
            disabled={!addOk}
            onClick={() => {
              const lang = adding.trim();
              onChange({ ...translations, [lang]: {} });
              setOpen(lang);
              setAdding("");
            }}
          >
            Add language
          </button>
        </div>
      </div>
      {langs.length === 0 && <p class="muted">No translations yet.</p>}
      <ul class="lang-list">
        {langs.map((lang) => {
          const missing = missingCount(rows, texts, steps, translations[lang]);
          const shown = open === lang;
          return (
            <li key={lang}>
              <div class="field-card-head">
                <strong lang={lang}>{lang}</strong>
                <span class={missing ? "badge warn" : "badge"}>
                  {missing ? `${missing} missing` : "complete"}
                </span>
                <span class="spacer" />
                <button
                  type="button"
                  class="secondary small"
                  aria-expanded={shown ? "true" : "false"}
                  onClick={() => setOpen(shown ? null : lang)}
                >
                  {shown ? "Close" : "Edit"}
                  <span class="visually-hidden">{` ${lang} texts`}</span>
                </button>
                <button
                  type="button"
                  class="danger small"
                  aria-label={`Remove ${lang}`}
                  onClick={() => {
                    const { [lang]: _, ...rest } = translations;
                    onChange(rest);
                  }}
                >
                  Remove
                </button>
              </div>
              {shown && (
                <div class="row2">
                  {slots.map((s) => {
                    const v = s.get(translations[lang]) ?? "";
                    const id = `tr-${lang}-${s.id}`;
                    return (
                      <div key={s.id}>
                        <label for={id}>
                          {s.label}
                          {!v.trim() && s.original.trim() && (
                            <>
                              {" "}
                              <span class="muted">(missing)</span>
                            </>
                          )}
                        </label>
                        <input
                          id={id}
                          type="text"
                          lang={lang}
                          dir="auto"
                          value={v}
                          placeholder={s.original}
                          onInput={(e) =>
                            onChange({
                              ...translations,
                              [lang]: s.set(translations[lang], e.currentTarget.value),
                            })}
                        />
                      </div>
                    );
                  })}
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
