/**
 * The hosted form's fields: in order, or in titled step sections (all shown without
 * JavaScript; one at a time once hydrated), each field shown or hidden by the rules.
 * @module
 */
import type { Field } from "@/lib/schemas.ts";
import { FieldRow, type FileState } from "./fields.tsx";
import { conditional, type PageLogic } from "./logic.ts";
import type { HostedFormProps } from "./types.ts";

/** Props: the island's props and state. `current` is the step shown, or null for all. */
export interface FormFieldsProps {
  props: HostedFormProps;
  logic: PageLogic;
  /** Hydrated: conditions apply (before, the page is as the server rendered it). */
  live: boolean;
  current: number | null;
  errors: Record<string, string>;
  files: Record<string, FileState>;
  choose: string;
}

/** The fields, and the steps' sections when the form has steps. */
export function FormFields(
  { props, logic, live, current, errors, files, choose }: FormFieldsProps,
) {
  const byName = new Map(props.fields.map((f) => [f.name, f]));
  const row = (f: Field) => (
    <FieldRow
      key={f.id}
      field={f}
      value={props.values[f.name]}
      error={errors[f.name]}
      file={files[f.name]}
      hidden={live && logic.shown[f.name] === false}
      computed={logic.computed[f.name]}
      optionTexts={props.optionTexts[f.name]}
      choose={choose}
      enforceRequired={!conditional(f, props.steps)}
    />
  );
  if (!props.steps.length) return <>{props.fields.map(row)}</>;
  const inStep = new Set(props.steps.flatMap((s) => s.fields));
  return (
    <>
      {props.fields.filter((f) => !inStep.has(f.name)).map(row)}
      {props.steps.map((s, i) => (
        <section
          key={i}
          class="form-step"
          aria-labelledby={`step-${i}-title`}
          hidden={current !== null && i !== current}
        >
          <h2 id={`step-${i}-title`} tabIndex={-1}>{s.title}</h2>
          {s.fields.map((n) => byName.get(n)).filter((f): f is Field => !!f).map(row)}
        </section>
      ))}
    </>
  );
}
