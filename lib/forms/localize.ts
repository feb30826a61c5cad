/**
 * A form's texts in one language, as its hosted pages show them: the `translations` of
 * that language over the form's own texts (a missing translation shows the original).
 * Option values never change, only the text shown for them; a step's title is translated
 * by its title in the default language.
 * @module
 */
import type { Field, Form } from "@/lib/schemas.ts";

/** The form's texts in one language. */
export interface LocalizedTexts {
  /** The page heading (the form's name unless translated). */
  title: string;
  /** The submit button's text, when the form sets one for the language. */
  submit?: string;
  /** The thank-you message, when the form or the translation has one. */
  success?: string;
  /** The fields with label, help and placeholder in the language. */
  fields: Field[];
  /** Field name to option value to the text shown. */
  optionTexts: Record<string, Record<string, string>>;
  /** The steps' titles, in the steps' order. */
  stepTitles: string[];
}

/** The form's texts in `lang` (its default language: the form's own texts). */
export function localize(form: Form, lang: string): LocalizedTexts {
  const t = lang === (form.default_language ?? "en") ? undefined : form.translations?.[lang];
  const optionTexts: Record<string, Record<string, string>> = {};
  const fields = form.fields.map((f) => {
    const ft = t?.fields?.[f.name];
    if (!ft) return f;
    if (ft.options) optionTexts[f.name] = { ...ft.options };
    return {
      ...f,
      ...(ft.label ? { label: ft.label } : {}),
      ...(ft.help ? { help: ft.help } : {}),
      ...(ft.placeholder ? { placeholder: ft.placeholder } : {}),
    };
  });
  return {
    title: t?.form?.title || form.name,
    submit: t?.form?.submit,
    success: t?.form?.success || form.thank_you,
    fields,
    optionTexts,
    stepTitles: (form.steps ?? []).map((s) => t?.steps?.[s.title] || s.title),
  };
}
