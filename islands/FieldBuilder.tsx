/**
 * The form editor's field builder: add, edit, reorder and remove fields with every type
 * and rule, and a live preview. It writes the field list as JSON into the hidden
 * `fields_json` input of the surrounding server-rendered form. Only the card being edited
 * is open; the others show a one-line summary. Saving checks the fields first.
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { FieldInput } from "@/lib/schemas.ts";
import {
  CHOICE,
  type Row,
  rowProblems,
  type Rule,
  RULE_LABELS,
  rulesOf,
  toField,
  toRow,
} from "./builder/model.ts";
import { Preview } from "./builder/preview.tsx";

/** Props: the current fields and the type lists (islands import no values from lib). */
export interface FieldBuilderProps {
  fields: FieldInput[];
  types: string[];
  fileTypes: string[];
  [key: string]: unknown;
}

/** The field builder island. */
export default function FieldBuilder({ fields, types, fileTypes }: FieldBuilderProps) {
  const [rows, setRows] = useState<Row[]>(() => fields.map((f, i) => toRow(f, i + 1)));
  const [addType, setAddType] = useState("text");
  const [openKey, setOpenKey] = useState<number | null>(null);
  const [problems, setProblems] = useState<string[]>([]);
  const root = useRef<HTMLDivElement>(null);
  const json = JSON.stringify(rows.map((r) => toField(r, fileTypes)));
  const current = useRef({ rows, fileTypes });
  current.current = { rows, fileTypes };

  // The builder checks the fields before the surrounding form is sent.
  useEffect(() => {
    const form = root.current?.closest("form");
    if (!form) return;
    const check = (e: SubmitEvent) => {
      const found = rowProblems(current.current.rows, current.current.fileTypes);
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

  const update = (key: number, change: Partial<Row>) =>
    setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...change } : r)));
  const setRule = (row: Row, rule: Rule, value: string) =>
    update(row.key, { rules: { ...row.rules, [rule]: value } });
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

  // Options carry `selected` as well as the select's `value`: server-rendered HTML only
  // knows the former, and hydration does not patch it.
  return (
    <div class="builder" ref={root}>
      <input type="hidden" name="fields_json" value={json} />
      {problems.length > 0 && (
        <div class="notice error builder-errors" role="alert" tabIndex={-1}>
          <p>The form was not saved. Fix these fields first:</p>
          <ul>{problems.map((p) => <li key={p}>{p}</li>)}</ul>
        </div>
      )}
      <div class="builder-grid">
        <div>
          {rows.length === 0 && (
            <p class="empty">No fields yet. Pick a type below and add the first one.</p>
          )}
          <ol class="field-list">
            {rows.map((r, i) => {
              const p = `f${r.key}`;
              const nameOk = /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(r.name);
              const open = openKey === r.key;
              return (
                <li class={`field-card${open ? "" : " collapsed"}`} key={r.key}>
                  <div class="field-card-head">
                    <strong>{r.label || r.name || "(unnamed)"}</strong>
                    <span class="badge">{r.type}</span>
                    {r.required && <span class="muted">required</span>}
                    <span class="spacer" />
                    <button
                      type="button"
                      class="secondary small"
                      aria-expanded={open ? "true" : "false"}
                      onClick={() => setOpenKey(open ? null : r.key)}
                    >
                      {open ? "Close" : "Edit"}
                      <span class="visually-hidden">{` ${r.name}`}</span>
                    </button>
                    <button
                      type="button"
                      class="secondary small"
                      aria-label={`Move ${r.name} up`}
                      disabled={i === 0}
                      onClick={() => move(i, -1)}
                    >
                      ↑
                    </button>
                    <button
                      type="button"
                      class="secondary small"
                      aria-label={`Move ${r.name} down`}
                      disabled={i === rows.length - 1}
                      onClick={() => move(i, 1)}
                    >
                      ↓
                    </button>
                    <button
                      type="button"
                      class="danger small"
                      aria-label={`Remove ${r.name}`}
                      onClick={() => setRows((rs) => rs.filter((x) => x.key !== r.key))}
                    >
                      Remove
                    </button>
                  </div>
                  {open && (
                    <div id={`${p}-body`}>
                      <div class="row2">
                        <div>
                          <label for={`${p}-name`}>Name (data key)</label>
                          <input
                            id={`${p}-name`}
                            type="text"
                            value={r.name}
                            aria-invalid={nameOk ? "false" : "true"}
                            onInput={(e) => update(r.key, { name: e.currentTarget.value })}
                          />
                          {!nameOk && (
                            <p class="field-error">
                              Letters, digits, _ . - only; starts with a letter or _.
                            </p>
                          )}
                        </div>
                        <div>
                          <label for={`${p}-type`}>Type</label>
                          <select
                            id={`${p}-type`}
                            value={r.type}
                            onChange={(e) => update(r.key, { type: e.currentTarget.value })}
                          >
                            {types.map((t) => (
                              <option key={t} value={t} selected={t === r.type}>{t}</option>
                            ))}
                          </select>
                        </div>
                        <div>
                          <label for={`${p}-label`}>Label</label>
                          <input
                            id={`${p}-label`}
                            type="text"
                            value={r.label}
                            onInput={(e) => update(r.key, { label: e.currentTarget.value })}
                          />
                        </div>
                        <div>
                          <label for={`${p}-ph`}>Placeholder</label>
                          <input
                            id={`${p}-ph`}
                            type="text"
                            value={r.placeholder}
                            onInput={(e) => update(r.key, { placeholder: e.currentTarget.value })}
                          />
                        </div>
                      </div>
                      <label class="check">
                        <input
                          type="checkbox"
                          checked={r.required}
                          onChange={(e) => update(r.key, { required: e.currentTarget.checked })}
                        />{" "}
                        Required
                      </label>
                      <div class="row2">
                        {rulesOf(r.type, fileTypes).map((rule) => (
                          <div class={rule === "options" || rule === "pattern" ? "span2" : ""}>
                            <label for={`${p}-${rule}`}>{RULE_LABELS[rule]}</label>
                            {rule === "options"
                              ? (
                                <textarea
                                  id={`${p}-${rule}`}
                                  rows={3}
                                  value={r.rules.options}
                                  onInput={(e) => setRule(r, rule, e.currentTarget.value)}
                                />
                              )
                              : (
                                <input
                                  id={`${p}-${rule}`}
                                  type="text"
                                  value={r.rules[rule]}
                                  onInput={(e) => setRule(r, rule, e.currentTarget.value)}
                                />
                              )}
                          </div>
                        ))}
                      </div>
                      <label for={`${p}-help`}>Help text</label>
                      <input
                        id={`${p}-help`}
                        type="text"
                        value={r.help}
                        onInput={(e) => update(r.key, { help: e.currentTarget.value })}
                      />
                    </div>
                  )}
                </li>
              );
            })}
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
        </div>
        <Preview rows={rows} fileTypes={fileTypes} />
      </div>
    </div>
  );
}
