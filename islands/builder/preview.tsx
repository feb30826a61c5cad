/**
 * The field builder's live preview.
 * @module
 */
import { SELECT_PROMPT } from "@/components/fields.ts";
import type { Row } from "./model.ts";

/** How the form will look; controls have no `name`, so nothing here is posted. */
export function Preview({ rows, fileTypes }: { rows: Row[]; fileTypes: string[] }) {
  return (
    <aside class="preview" aria-label="Preview">
      <h3>Preview</h3>
      {rows.length === 0 && <p class="muted">Fields appear here as you add them.</p>}
      {rows.map((r) => {
        const id = `pv-${r.key}`;
        const label = (
          <>
            {r.label || r.name}
            {r.required && <span class="required">*</span>}
          </>
        );
        const options = r.rules.options.split("\n").map((s) => s.trim()).filter(Boolean);
        if (r.type === "hidden") return <p key={r.key} class="muted">Hidden: {r.name}</p>;
        if (r.type === "boolean") {
          return (
            <label class="check" key={r.key}>
              <input type="checkbox" /> {label}
            </label>
          );
        }
        if (r.type === "radio") {
          return (
            <fieldset key={r.key}>
              <legend>{label}</legend>
              {options.map((o) => (
                <label class="check">
                  <input type="radio" /> {o}
                </label>
              ))}
            </fieldset>
          );
        }
        let control;
        if (r.type === "textarea") control = <textarea id={id} placeholder={r.placeholder} />;
        else if (r.type === "select" || r.type === "multiselect") {
          control = (
            <select id={id} multiple={r.type === "multiselect"}>
              {r.type === "select" && <option value="">{SELECT_PROMPT}</option>}
              {options.map((o) => <option key={o}>{o}</option>)}
            </select>
          );
        } else if (fileTypes.includes(r.type)) control = <input id={id} type="file" />;
        else {
          const type = r.type === "integer"
            ? "number"
            : r.type === "datetime"
            ? "datetime-local"
            : r.type;
          control = <input id={id} type={type as "text"} placeholder={r.placeholder} />;
        }
        return (
          <div key={r.key}>
            <label for={id}>{label}</label>
            {control}
            {r.help && <p class="help">{r.help}</p>}
          </div>
        );
      })}
    </aside>
  );
}
