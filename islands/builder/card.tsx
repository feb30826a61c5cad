/**
 * One field card of the builder: a one-line head (name, type, required, its condition in
 * words, its step) with move and remove buttons, and when open every property, rule,
 * condition, calculation and default of the field.
 * @module
 */
import { ConditionEditor } from "./condition_editor.tsx";
import { describeLogic, type FieldRef } from "./conditions.ts";
import { type Row, type Rule, RULE_LABELS, rulesOf } from "./model.ts";

/** What a card needs from the builder. */
export interface CardProps {
  row: Row;
  index: number;
  count: number;
  open: boolean;
  types: string[];
  fileTypes: string[];
  /** The other fields a condition or calculation may name. */
  others: FieldRef[];
  /** The title of the step holding this field, if the form has steps. */
  step?: string;
  onToggle: () => void;
  onMove: (by: number) => void;
  onRemove: () => void;
  onChange: (change: Partial<Row>) => void;
}

function Head(p: CardProps) {
  const r = p.row;
  return (
    <div class="field-card-head">
      <strong>{r.label || r.name || "(unnamed)"}</strong>
      <span class="badge">{r.type}</span>
      {r.required && <span class="muted">required</span>}
      {r.compute.trim() && <span class="badge">calculated</span>}
      {p.step && <span class="muted">{`step “${p.step}”`}</span>}
      <span class="spacer" />
      <button
        type="button"
        class="secondary small"
        aria-expanded={p.open ? "true" : "false"}
        onClick={p.onToggle}
      >
        {p.open ? "Close" : "Edit"}
        <span class="visually-hidden">{` ${r.name}`}</span>
      </button>
      <button
        type="button"
        class="secondary small"
        aria-label={`Move ${r.name} up`}
        disabled={p.index === 0}
        onClick={() => p.onMove(-1)}
      >
        ↑
      </button>
      <button
        type="button"
        class="secondary small"
        aria-label={`Move ${r.name} down`}
        disabled={p.index === p.count - 1}
        onClick={() => p.onMove(1)}
      >
        ↓
      </button>
      <button
        type="button"
        class="danger small"
        aria-label={`Remove ${r.name}`}
        onClick={p.onRemove}
      >
        Remove
      </button>
    </div>
  );
}

function TextInput(
  { id, label, value, onInput, help }: {
    id: string;
    label: string;
    value: string;
    onInput: (v: string) => void;
    help?: string;
  },
) {
  return (
    <div>
      <label for={id}>{label}</label>
      <input
        id={id}
        type="text"
        value={value}
        aria-describedby={help ? `${id}-help` : undefined}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
      {help && <p class="help" id={`${id}-help`}>{help}</p>}
    </div>
  );
}

function Body(p: CardProps) {
  const r = p.row;
  const id = `f${r.key}`;
  const nameOk = /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(r.name);
  const setRule = (rule: Rule, value: string) =>
    p.onChange({ rules: { ...r.rules, [rule]: value } });
  return (
    <div id={`${id}-body`}>
      <div class="row2">
        <div>
          <label for={`${id}-name`}>Name (data key)</label>
          <input
            id={`${id}-name`}
            type="text"
            value={r.name}
            aria-invalid={nameOk ? "false" : "true"}
            onInput={(e) => p.onChange({ name: e.currentTarget.value })}
          />
          {!nameOk && (
            <p class="field-error">Letters, digits, _ . - only; starts with a letter or _.</p>
          )}
        </div>
        <div>
          <label for={`${id}-type`}>Type</label>
          <select
            id={`${id}-type`}
            value={r.type}
            onChange={(e) => p.onChange({ type: e.currentTarget.value })}
          >
            {p.types.map((t) => <option key={t} value={t} selected={t === r.type}>{t}</option>)}
          </select>
        </div>
        <TextInput
          id={`${id}-label`}
          label="Label"
          value={r.label}
          onInput={(label) => p.onChange({ label })}
        />
        <TextInput
          id={`${id}-ph`}
          label="Placeholder"
          value={r.placeholder}
          onInput={(placeholder) => p.onChange({ placeholder })}
        />
      </div>
      <label class="check">
        <input
          type="checkbox"
          checked={r.required}
          onChange={(e) => p.onChange({ required: e.currentTarget.checked })}
        />{" "}
        Required
      </label>
      <div class="row2">
        {rulesOf(r.type, p.fileTypes).map((rule) => (
          <div key={rule} class={rule === "options" || rule === "pattern" ? "span2" : ""}>
            <label for={`${id}-${rule}`}>{RULE_LABELS[rule]}</label>
            {rule === "options"
              ? (
                <textarea
                  id={`${id}-${rule}`}
                  rows={3}
                  value={r.rules.options}
                  onInput={(e) => setRule(rule, e.currentTarget.value)}
                />
              )
              : (
                <input
                  id={`${id}-${rule}`}
                  type="text"
                  value={r.rules[rule]}
                  onInput={(e) => setRule(rule, e.currentTarget.value)}
                />
              )}
          </div>
        ))}
      </div>
      <TextInput
        id={`${id}-help`}
        label="Help text"
        value={r.help}
        onInput={(help) => p.onChange({ help })}
      />
      {!p.fileTypes.includes(r.type) && (
        <TextInput
          id={`${id}-default`}
          label="Default value"
          value={r.default}
          onInput={(v) => p.onChange({ default: v })}
          help={`The value the hosted page starts with; ?${
            r.name || "name"
          }=… in its address fills it too.${
            r.type === "multiselect" ? " One choice per line." : ""
          }`}
        />
      )}
      <ConditionEditor
        id={`${id}-when`}
        legend="Show this field only when"
        value={r.when}
        fields={p.others}
        onChange={(when) => p.onChange({ when })}
      />
      <label for={`${id}-compute`}>Calculation (JSON Logic, optional)</label>
      <textarea
        id={`${id}-compute`}
        class="mono"
        rows={2}
        value={r.compute}
        placeholder='{"*": [{"var": "quantity"}, {"var": "price"}]}'
        aria-describedby={`${id}-compute-help`}
        onInput={(e) => p.onChange({ compute: e.currentTarget.value })}
      />
      <p class="help" id={`${id}-compute-help`}>
        The server computes and stores this field from the others (a sent value is ignored); the
        hosted page shows it live. The operators are JSON Logic's (jsonlogic.com); a problem is
        named above the fields when you save.
      </p>
    </div>
  );
}

/** The card. */
export function FieldCard(p: CardProps) {
  const r = p.row;
  return (
    <li class={`field-card${p.open ? "" : " collapsed"}`}>
      <Head {...p} />
      {r.when !== undefined && (
        <p class="cond-summary">
          <span class="muted">Shown when</span> {describeLogic(r.when, p.others)}
        </p>
      )}
      {p.open && <Body {...p} />}
    </li>
  );
}
