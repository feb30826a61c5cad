/**
 * The builder's steps: split the hosted page into titled steps, pick each step's fields,
 * reorder them, and show a step only under a condition. No steps: one page.
 * @module
 */
import { ConditionEditor } from "./condition_editor.tsx";
import type { FieldRef } from "./conditions.ts";

/** The editor's copy of a step. */
export interface StepRow {
  key: number;
  title: string;
  fields: string[];
  when?: unknown;
}

/** A definition's step as the builder reads and writes it. */
export interface StepInput {
  title: string;
  fields: string[];
  when?: unknown;
}

/** Rows from the definition's steps. */
export function toStepRows(steps: StepInput[] | undefined): StepRow[] {
  return (steps ?? []).map((s, i) => ({ key: i + 1, ...s }));
}

/** The definition's steps from the rows (fields listed in the fields' order). */
export function toSteps(steps: StepRow[], order: string[]): StepInput[] {
  return steps.map((s) => {
    const out: StepInput = {
      title: s.title.trim(),
      fields: order.filter((n) => s.fields.includes(n)),
    };
    if (s.when !== undefined) out.when = s.when;
    return out;
  });
}

/** What is wrong with the steps before saving (empty when none). */
export function stepProblems(steps: StepRow[], fields: FieldRef[]): string[] {
  if (!steps.length) return [];
  const out: string[] = [];
  const placed = new Set(steps.flatMap((s) => s.fields));
  steps.forEach((s, i) => {
    if (!s.title.trim()) out.push(`Step ${i + 1}: give it a title.`);
    if (!s.fields.some((n) => fields.some((f) => f.name === n))) {
      out.push(`Step ${i + 1}: pick at least one field.`);
    }
  });
  const loose = fields.filter((f) => f.type !== "hidden" && !placed.has(f.name));
  if (loose.length) {
    out.push(`Put every field in a step: ${loose.map((f) => f.label || f.name).join(", ")}.`);
  }
  return out;
}

/** The steps section of the builder. */
export function StepsEditor(
  { steps, fields, onChange }: {
    steps: StepRow[];
    fields: FieldRef[];
    onChange: (steps: StepRow[]) => void;
  },
) {
  const set = (key: number, change: Partial<StepRow>) =>
    onChange(steps.map((s) => (s.key === key ? { ...s, ...change } : s)));
  const pick = (key: number, name: string, on: boolean) =>
    onChange(steps.map((s) => {
      const rest = s.fields.filter((n) => n !== name);
      return { ...s, fields: s.key === key && on ? [...rest, name] : rest };
    }));
  const move = (i: number, by: number) => {
    const j = i + by;
    if (j < 0 || j >= steps.length) return;
    const next = steps.slice();
    [next[i], next[j]] = [next[j], next[i]];
    onChange(next);
  };
  const add = () => {
    const key = Math.max(0, ...steps.map((s) => s.key)) + 1;
    const placed = new Set(steps.flatMap((s) => s.fields));
    // The first step takes every field, so a form split in two starts whole.
    const first = steps.length ? [] : fields.map((f) => f.name).filter((n) => !placed.has(n));
    onChange([...steps, { key, title: `Step ${steps.length + 1}`, fields: first }]);
  };
  const placedIn = (name: string) => steps.find((s) => s.fields.includes(name));
  return (
    <section class="steps-editor" aria-labelledby="steps-heading">
      <h3 id="steps-heading">Steps</h3>
      <p class="help">
        Split the hosted page into steps with a progress bar; each step is checked before the next.
        Without steps the form is one page. Hidden fields need no step.
      </p>
      <ol class="step-list">
        {steps.map((s, i) => (
          <li key={s.key} class="step-card">
            <div class="field-card-head">
              <label for={`st${s.key}-title`}>Step {i + 1} title</label>
              <input
                id={`st${s.key}-title`}
                type="text"
                value={s.title}
                onInput={(e) => set(s.key, { title: e.currentTarget.value })}
              />
              <button
                type="button"
                class="secondary small"
                aria-label={`Move step ${i + 1} up`}
                disabled={i === 0}
                onClick={() => move(i, -1)}
              >
                ↑
              </button>
              <button
                type="button"
                class="secondary small"
                aria-label={`Move step ${i + 1} down`}
                disabled={i === steps.length - 1}
                onClick={() => move(i, 1)}
              >
                ↓
              </button>
              <button
                type="button"
                class="danger small"
                aria-label={`Remove step ${i + 1}`}
                onClick={() => onChange(steps.filter((x) => x.key !== s.key))}
              >
                Remove
              </button>
            </div>
            <fieldset>
              <legend>Fields of step {i + 1}</legend>
              {fields.map((f) => {
                const other = placedIn(f.name);
                return (
                  <label class="check" key={f.name}>
                    <input
                      type="checkbox"
                      checked={s.fields.includes(f.name)}
                      onChange={(e) => pick(s.key, f.name, e.currentTarget.checked)}
                    />{" "}
                    {f.label || f.name}
                    {other && other.key !== s.key && (
                      <span class="muted">{` (now in “${other.title || "untitled"}”)`}</span>
                    )}
                  </label>
                );
              })}
            </fieldset>
            <ConditionEditor
              id={`st${s.key}-when`}
              legend={`Show step ${i + 1} only when`}
              value={s.when}
              fields={fields}
              onChange={(when) => set(s.key, { when })}
            />
          </li>
        ))}
      </ol>
      <button type="button" class="secondary" onClick={add}>Add step</button>
    </section>
  );
}
