/**
 * The field builder's live preview: the fields as the hosted page shows them, in any of the
 * form's languages, following the conditions and calculations through the rules module as
 * the preview's own answers change, with the steps as titled sections.
 * @module
 */
import { useState } from "preact/hooks";
import {
  compileRules,
  evaluate,
  type Evaluation,
  isRtl,
  type RuleField,
  uiText,
} from "@/lib/rules/mod.ts";
import { type Row, toField } from "./model.ts";
import type { StepInput } from "./steps_editor.tsx";
import type { DefaultTexts, LanguageTexts, Translations } from "./translations_editor.tsx";

/** Props: the builder's current state. */
export interface PreviewProps {
  rows: Row[];
  fileTypes: string[];
  steps: StepInput[];
  translations: Translations;
  defaultLanguage: string;
  texts: DefaultTexts;
}

/** The rules' answer for the preview's values, or null while an expression cannot run. */
function evaluated(fields: RuleField[], steps: StepInput[], values: Record<string, unknown>) {
  try {
    return evaluate(compileRules({ fields, steps }), values);
  } catch {
    return null;
  }
}

/** The fields as the rules read them (a calculation that is not JSON yet is left out). */
function ruleFields(rows: Row[], fileTypes: string[]): RuleField[] {
  return rows.map((r) => {
    const f = toField(r, fileTypes) as unknown as RuleField;
    if (typeof f.compute === "string") return { ...f, compute: undefined };
    return f;
  });
}

function PreviewField(
  { row, lang, texts, value, computed, fileTypes, set }: {
    row: Row;
    lang: string;
    texts: LanguageTexts;
    value: unknown;
    computed: unknown;
    fileTypes: string[];
    set: (v: unknown) => void;
  },
) {
  const r = row;
  const id = `pv-${r.key}`;
  const t = texts.fields?.[r.name] ?? {};
  const options = r.rules.options.split("\n").map((s) => s.trim()).filter(Boolean);
  const text = (o: string) => t.options?.[o] || o;
  const label = (
    <>
      {t.label || r.label || r.name}
      {r.required && <span class="required">*</span>}
    </>
  );
  const help = t.help || r.help;
  const placeholder = t.placeholder || r.placeholder;
  if (r.type === "hidden") return <p class="muted">Hidden: {r.name}</p>;
  if (r.compute.trim()) {
    return (
      <div>
        <span class="label-like">{label}</span>
        <output class="computed" aria-label={t.label || r.label || r.name}>
          {computed === undefined ? "—" : String(computed)}
        </output>
      </div>
    );
  }
  if (r.type === "boolean") {
    return (
      <label class="check">
        <input
          type="checkbox"
          checked={value === true}
          onChange={(e) => set(e.currentTarget.checked || undefined)}
        />{" "}
        {label}
      </label>
    );
  }
  if (r.type === "radio") {
    return (
      <fieldset>
        <legend>{label}</legend>
        {options.map((o) => (
          <label class="check" key={o}>
            <input
              type="radio"
              name={`pv-${r.key}`}
              checked={value === o}
              onChange={() => set(o)}
            />{" "}
            {text(o)}
          </label>
        ))}
      </fieldset>
    );
  }
  let control;
  if (r.type === "textarea") {
    control = (
      <textarea
        id={id}
        placeholder={placeholder}
        onInput={(e) => set(e.currentTarget.value || undefined)}
      />
    );
  } else if (r.type === "select" || r.type === "multiselect") {
    const multi = r.type === "multiselect";
    control = (
      <select
        id={id}
        multiple={multi}
        onChange={(e) => {
          const el = e.currentTarget;
          const picked = Array.from(el.selectedOptions, (o) => o.value).filter(Boolean);
          set(multi ? (picked.length ? picked : undefined) : picked[0]);
        }}
      >
        {!multi && <option value="">{uiText(lang, "choose")}</option>}
        {options.map((o) => <option key={o} value={o}>{text(o)}</option>)}
      </select>
    );
  } else if (fileTypes.includes(r.type)) control = <input id={id} type="file" />;
  else {
    const numeric = r.type === "integer" || r.type === "number";
    const type = numeric ? "number" : r.type === "datetime" ? "datetime-local" : r.type;
    control = (
      <input
        id={id}
        type={type as "text"}
        placeholder={placeholder}
        onInput={(e) => {
          const v = e.currentTarget.value;
          set(v === "" ? undefined : numeric && !isNaN(Number(v)) ? Number(v) : v);
        }}
      />
    );
  }
  return (
    <div>
      <label for={id}>{label}</label>
      {control}
      {help && <p class="help">{help}</p>}
    </div>
  );
}

/** How the form will look; controls have no `name`, so nothing here is posted. */
export function Preview(p: PreviewProps) {
  const [values, setValues] = useState<Record<string, unknown>>({});
  const [lang, setLang] = useState(p.defaultLanguage);
  const langs = [
    p.defaultLanguage,
    ...Object.keys(p.translations).filter((l) => l !== p.defaultLanguage),
  ];
  const shownLang = langs.includes(lang) ? lang : p.defaultLanguage;
  const texts: LanguageTexts = shownLang === p.defaultLanguage
    ? {}
    : p.translations[shownLang] ?? {};
  const fields = ruleFields(p.rows, p.fileTypes);
  const answer: Evaluation | null = evaluated(fields, p.steps, values);
  const set = (name: string) => (v: unknown) =>
    setValues((old) => {
      const { [name]: _, ...rest } = old;
      return v === undefined ? rest : { ...rest, [name]: v };
    });
  const one = (r: Row) =>
    answer && answer.shown[r.name.trim()] === false ? null : (
      <PreviewField
        key={r.key}
        row={r}
        lang={shownLang}
        texts={texts}
        value={values[r.name]}
        computed={answer?.computed[r.name.trim()]}
        fileTypes={p.fileTypes}
        set={set(r.name.trim())}
      />
    );
  const byName = new Map(p.rows.map((r) => [r.name.trim(), r]));
  return (
    <aside class="preview" aria-label="Preview">
      <h3>Preview</h3>
      {langs.length > 1 && (
        <>
          <label for="preview-lang">Preview language</label>
          <select
            id="preview-lang"
            value={shownLang}
            onChange={(e) => setLang(e.currentTarget.value)}
          >
            {langs.map((l) => <option key={l} value={l} selected={l === shownLang}>{l}</option>)}
          </select>
        </>
      )}
      <div class="preview-body" lang={shownLang} dir={isRtl(shownLang) ? "rtl" : "ltr"}>
        {texts.form?.title && <p class="preview-title">{texts.form.title}</p>}
        {p.rows.length === 0 && <p class="muted">Fields appear here as you add them.</p>}
        {p.steps.length
          ? p.steps.map((s, i) =>
            answer && answer.steps[i] === false ? null : (
              <section key={i} class="preview-step">
                <h4>{texts.steps?.[s.title.trim()] || s.title || `Step ${i + 1}`}</h4>
                {s.fields.map((n) => byName.get(n)).filter((r): r is Row => r !== undefined).map(
                  one,
                )}
              </section>
            )
          )
          : p.rows.map(one)}
        <p>
          <span class="button-like">{texts.form?.submit || uiText(shownLang, "submit")}</span>
        </p>
      </div>
      {!answer && p.rows.length > 0 && (
        <p class="help">A condition or calculation cannot run yet; every field is shown.</p>
      )}
    </aside>
  );
}
