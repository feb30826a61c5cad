/**
 * The condition editor of a field or a step: "Show only when" all or any of a list of
 * rules (field, operator, value) and groups one level down hold. It edits a `when` (JSON
 * Logic) without showing JSON; an expression written by hand that it cannot show as rules
 * is edited as JSON text instead.
 * @module
 */
import { useState } from "preact/hooks";
import {
  type FieldRef,
  fromLogic,
  type GroupCond,
  newRule,
  OPERATORS,
  operatorsFor,
  type RuleCond,
  toLogic,
  UNARY,
} from "./conditions.ts";

/** Props: the current `when` (undefined: always shown) and the fields it may name. */
export interface ConditionEditorProps {
  /** Prefix of element ids (unique on the page). */
  id: string;
  /** What the condition decides, e.g. "Show this field only when". */
  legend: string;
  value: unknown;
  fields: FieldRef[];
  onChange: (when: unknown) => void;
}

function RuleRow(
  { id, rule, fields, onChange, onRemove }: {
    id: string;
    rule: RuleCond;
    fields: FieldRef[];
    onChange: (r: RuleCond) => void;
    onRemove: () => void;
  },
) {
  const field = fields.find((f) => f.name === rule.field);
  const ops = operatorsFor(field?.type ?? "text");
  const op = ops.includes(rule.op) ? rule.op : ops[0];
  const choices = field?.type === "boolean" ? ["true", "false"] : field?.options ?? [];
  const label = (v: string) =>
    field?.type === "boolean" ? (v === "true" ? "checked" : "unchecked") : v;
  return (
    <div class="cond-rule">
      <label class="visually-hidden" for={`${id}-field`}>Field</label>
      <select
        id={`${id}-field`}
        value={rule.field}
        onChange={(e) => onChange(newRule(fields.find((f) => f.name === e.currentTarget.value)))}
      >
        {!field && <option value={rule.field} selected>{rule.field || "Choose a field"}</option>}
        {fields.map((f) => (
          <option key={f.name} value={f.name} selected={f.name === rule.field}>
            {f.label || f.name}
          </option>
        ))}
      </select>
      <label class="visually-hidden" for={`${id}-op`}>Operator</label>
      <select
        id={`${id}-op`}
        value={op}
        onChange={(e) => onChange({ ...rule, op: e.currentTarget.value as RuleCond["op"] })}
      >
        {ops.map((o) => <option key={o} value={o} selected={o === op}>{OPERATORS[o]}</option>)}
      </select>
      {!UNARY.includes(op) && (
        <>
          <label class="visually-hidden" for={`${id}-value`}>Value</label>
          {choices.length
            ? (
              <select
                id={`${id}-value`}
                value={rule.value}
                onChange={(e) => onChange({ ...rule, op, value: e.currentTarget.value })}
              >
                {!choices.includes(rule.value) && <option value={rule.value}>{rule.value}</option>}
                {choices.map((c) => (
                  <option key={c} value={c} selected={c === rule.value}>{label(c)}</option>
                ))}
              </select>
            )
            : (
              <input
                id={`${id}-value`}
                type="text"
                inputMode={["number", "integer"].includes(field?.type ?? "")
                  ? "decimal"
                  : undefined}
                value={rule.value}
                onInput={(e) => onChange({ ...rule, op, value: e.currentTarget.value })}
              />
            )}
        </>
      )}
      <button type="button" class="secondary small" onClick={onRemove}>
        Remove <span class="visually-hidden">this condition</span>
      </button>
    </div>
  );
}

function Group(
  { id, group, fields, nested, onChange, onRemove }: {
    id: string;
    group: GroupCond;
    fields: FieldRef[];
    nested: boolean;
    onChange: (g: GroupCond) => void;
    onRemove?: () => void;
  },
) {
  const set = (i: number, item: RuleCond | GroupCond) =>
    onChange({ ...group, items: group.items.map((x, j) => (j === i ? item : x)) });
  const remove = (i: number) =>
    onChange({ ...group, items: group.items.filter((_, j) => j !== i) });
  return (
    <div class={nested ? "cond-group nested" : "cond-group"} role="group" aria-label="Conditions">
      <div class="cond-mode">
        <label for={`${id}-mode`}>{nested ? "Where" : "When"}</label>
        <select
          id={`${id}-mode`}
          value={group.mode}
          onChange={(e) =>
            onChange({ ...group, mode: e.currentTarget.value as "all" | "any" })}
        >
          <option value="all" selected={group.mode === "all"}>all of these are true</option>
          <option value="any" selected={group.mode === "any"}>any of these is true</option>
        </select>
        {onRemove && (
          <button type="button" class="secondary small" onClick={onRemove}>
            Remove group
          </button>
        )}
      </div>
      {group.items.map((item, i) =>
        item.kind === "rule"
          ? (
            <RuleRow
              key={i}
              id={`${id}-${i}`}
              rule={item}
              fields={fields}
              onChange={(r) => set(i, r)}
              onRemove={() =>
                remove(i)}
            />
          )
          : (
            <Group
              key={i}
              id={`${id}-${i}`}
              group={item}
              fields={fields}
              nested
              onChange={(g) => set(i, g)}
              onRemove={() =>
                remove(i)}
            />
          )
      )}
      <div class="cond-add">
        <button
          type="button"
          class="secondary small"
          onClick={() => onChange({ ...group, items: [...group.items, newRule(fields[0])] })}
        >
          Add condition
        </button>
        {!nested && (
          <button
            type="button"
            class="secondary small"
            onClick={() =>
              onChange({
                ...group,
                items: [...group.items, {
                  kind: "group",
                  mode: group.mode === "all" ? "any" : "all",
                  items: [newRule(fields[0])],
                }],
              })}
          >
            Add group
          </button>
        )}
      </div>
    </div>
  );
}

/** The editor: a switch, then the rules (or the JSON of a hand-written expression). */
export function ConditionEditor({ id, legend, value, fields, onChange }: ConditionEditorProps) {
  const [group, setGroup] = useState<GroupCond | null>(() =>
    value === undefined ? null : fromLogic(value)
  );
  const [text, setText] = useState(() => value === undefined ? "" : JSON.stringify(value));
  const [bad, setBad] = useState(false);
  const on = value !== undefined;
  const emit = (g: GroupCond) => {
    setGroup(g);
    onChange(g.items.length ? toLogic(g, fields) : undefined);
    if (!g.items.length) setGroup(null);
  };
  return (
    <fieldset class="cond">
      <legend>{legend}</legend>
      <label class="check">
        <input
          type="checkbox"
          checked={on}
          disabled={!fields.length}
          onChange={(e) => {
            if (e.currentTarget.checked) {
              emit({ kind: "group", mode: "all", items: [newRule(fields[0])] });
            } else {
              setGroup(null);
              setText("");
              onChange(undefined);
            }
          }}
        />{" "}
        {fields.length
          ? "Only under a condition"
          : "Only under a condition (add another field first)"}
      </label>
      {on && group && (
        <Group
          id={id}
          group={group}
          fields={fields}
          nested={false}
          onChange={emit}
        />
      )}
      {on && !group && (
        <>
          <label for={`${id}-json`}>Condition (JSON Logic)</label>
          <textarea
            id={`${id}-json`}
            rows={3}
            class="mono"
            aria-invalid={bad ? "true" : "false"}
            value={text}
            onInput={(e) => {
              const t = e.currentTarget.value;
              setText(t);
              try {
                onChange(JSON.parse(t));
                setBad(false);
              } catch {
                setBad(true);
              }
            }}
          />
          <p class="help">
            {bad
              ? "This is not valid JSON yet; the last valid condition is kept."
              : "Written by hand: it is kept as it is. Clear the box above to start again with rules."}
          </p>
        </>
      )}
    </fieldset>
  );
}
