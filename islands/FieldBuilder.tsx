/**
 * The form editor's field builder: add, edit, reorder and remove fields with every type,
 * rule, condition, calculation and default; arrange them into steps; translate their texts;
 * and a live preview that follows the conditions in any language. It writes the fields,
 * steps, translations and default language as hidden inputs (`fields_json`, `steps_json`,
 * `translations_json`, `default_language`) of the surrounding server-rendered form. Only the
 * card being edited is open; the others show a one-line summary. Saving checks it all first.
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { FieldInput } from "@/lib/schemas.ts";
import { FieldCard } from "./builder/card.tsx";
import {
  CHOICE,
  fieldRefs,
  renameInRows,
  type Row,
  rowProblems,
  toField,
  toRow,
} from "./builder/model.ts";
import { Preview } from "./builder/preview.tsx";
import {
  type StepInput,
  stepProblems,
  type StepRow,
  StepsEditor,
  toStepRows,
  toSteps,
} from "./builder/steps_editor.tsx";
import {
  cleanTranslations,
  type DefaultTexts,
  renameInTranslations,
  type Translations,
  TranslationsEditor,
} from "./builder/translations_editor.tsx";

/** Props: the definition's parts it edits and the type lists (islands import no values from lib). */
export interface FieldBuilderProps {
  fields: FieldInput[];
  types: string[];
  fileTypes: string[];
  steps: StepInput[];
  translations: Translations;
  defaultLanguage: string;
  /** The form's own texts in its default language (title, submit, success). */
  texts: DefaultTexts;
  [key: string]: unknown;
}

/** The field builder island. */
export default function FieldBuilder(props: FieldBuilderProps) {
  const { types, fileTypes } = props;
  const [rows, setRows] = useState<Row[]>(() => props.fields.map((f, i) => toRow(f, i + 1)));
  const [steps, setSteps] = useState<StepRow[]>(() => toStepRows(props.steps));
  const [translations, setTranslations] = useState<Translations>(props.translations ?? {});
  const [defaultLanguage, setDefaultLanguage] = useState(props.defaultLanguage || "en");
  const [addType, setAddType] = useState("text");
  const [openKey, setOpenKey] = useState<number | null>(null);
  const [problems, setProblems] = useState<string[]>([]);
  const root = useRef<HTMLDivElement>(null);
  const order = rows.map((r) => r.name.trim());
  const refs = fieldRefs(rows);
  const current = useRef({ rows, steps, fileTypes });
  current.current = { rows, steps, fileTypes };

  // The builder checks the fields before the surrounding form is sent.
  useEffect(() => {
    const form = root.current?.closest("form");
    if (!form) return;
    const check = (e: SubmitEvent) => {
      const c = current.current;
      const found = [
        ...rowProblems(c.rows, c.fileTypes),
        ...stepProblems(c.steps, fieldRefs(c.rows)),
      ];
      setProblems(found);
      if (!found.length) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      requestAnimationFrame(() =>
        root.current?.querySelector<HTMLElement>(".builder-errors")?.focus()
      );
    };
    form.addEventListener("submit", check, { capture: true });
    return () => form.removeEventListener("submit", check, { capture: true });
  }, []);

  const update = (key: number, change: Partial<Row>) => {
    const before = rows.find((r) => r.key === key);
    const renamed = before && change.name !== undefined
      ? [before.name.trim(), change.name.trim()]
      : null;
    setRows((rs) => {
      const next = rs.map((r) => (r.key === key ? { ...r, ...change } : r));
      return renamed ? renameInRows(next, renamed[0], renamed[1]) : next;
    });
    if (renamed) {
      const [from, to] = renamed;
      setSteps((ss) =>
        ss.map((s) => ({ ...s, fields: s.fields.map((n) => (n === from ? to : n)) }))
      );
      setTranslations((t) => renameInTranslations(t, from, to));
    }
  };
  const move = (i: number, by: number) =>
    setRows((rs) => {
      const j = i + by;
      if (j < 0 || j >= rs.length) return rs;
      const next = rs.slice();
      [next[i], next[j]] = [next[j], next[i]];
      return next;
    });
  const add = () => {
    const taken = new Set(rows.map((r) => r.name));
    let n = rows.length + 1;
    while (taken.has(`field_${n}`)) n++;
    const base: FieldInput = { name: `field_${n}`, type: addType as FieldInput["type"] };
    if (CHOICE.includes(addType)) base.options = ["Option 1", "Option 2"];
    const key = Math.max(0, ...rows.map((r) => r.key)) + 1;
    setRows((rs) => [...rs, toRow(base, key)]);
    setOpenKey(key);
  };
  const stepOf = (name: string) => steps.find((s) => s.fields.includes(name.trim()))?.title;

  // Options carry `selected` as well as the select's `value`: server-rendered HTML only
  // knows the former, and hydration does not patch it.
  return (
    <div class="builder" ref={root}>
      <input
        type="hidden"
        name="fields_json"
        value={JSON.stringify(rows.map((r) => toField(r, fileTypes)))}
      />
      <input type="hidden" name="steps_json" value={JSON.stringify(toSteps(steps, order))} />
      <input
        type="hidden"
        name="translations_json"
        value={JSON.stringify(cleanTranslations(translations, rows, steps.map((s) => s.title)))}
      />
      <input type="hidden" name="default_language" value={defaultLanguage} />
      {problems.length > 0 && (
        <div class="notice error builder-errors" role="alert" tabIndex={-1}>
          <p>The form was not saved. Fix these first:</p>
          <ul>{problems.map((p) => <li key={p}>{p}</li>)}</ul>
        </div>
      )}
      <div class="builder-grid">
        <div>
          {rows.length === 0 && (
            <p class="empty">No fields yet. Pick a type below and add the first one.</p>
          )}
          <ol class="field-list">
            {rows.map((r, i) => (
              <FieldCard
                key={r.key}
                row={r}
                index={i}
                count={rows.length}
                open={openKey === r.key}
                types={types}
                fileTypes={fileTypes}
                others={refs.filter((f) => f.name !== r.name.trim())}
                step={steps.length ? stepOf(r.name) ?? "none" : undefined}
                onToggle={() => setOpenKey(openKey === r.key ? null : r.key)}
                onMove={(by) => move(i, by)}
                onRemove={() => setRows((rs) => rs.filter((x) => x.key !== r.key))}
                onChange={(change) => update(r.key, change)}
              />
            ))}
          </ol>
          <div class="add-field">
            <label class="visually-hidden" for="add-type">Type of the new field</label>
            <select
              id="add-type"
              value={addType}
              onChange={(e) => setAddType(e.currentTarget.value)}
            >
              {types.map((t) => <option key={t} value={t} selected={t === addType}>{t}</option>)}
            </select>
            <button type="button" class="secondary" onClick={add}>Add field</button>
          </div>
          <StepsEditor steps={steps} fields={refs} onChange={setSteps} />
          <TranslationsEditor
            rows={rows}
            steps={steps.map((s) => s.title)}
            texts={props.texts}
            translations={translations}
            defaultLanguage={defaultLanguage}
            onChange={setTranslations}
            onDefaultLanguage={setDefaultLanguage}
          />
        </div>
        <Preview
          rows={rows}
          fileTypes={fileTypes}
          steps={toSteps(steps, order)}
          translations={translations}
          defaultLanguage={defaultLanguage}
          texts={props.texts}
        />
      </div>
    </div>
  );
}
