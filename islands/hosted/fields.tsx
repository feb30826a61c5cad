/**
 * One field of the hosted form, for every field type: label, required mark, help, the
 * control and its error, wired with aria-invalid/aria-describedby. Initial values are
 * written only on the server (SSR), so hydration and re-renders never overwrite what a
 * person typed; events are handled by the form (delegation).
 * @module
 */
import type { Field } from "@/lib/schemas.ts";
import { acceptFor, fileHelp, ids, inputTypeOf, isFileField, SSR } from "@/components/fields.ts";
import type { PostedValue } from "./types.ts";

/** Upload progress of a file field (JS only). */
export interface FileState {
  status: "uploading" | "done" | "error";
  /** 0..1 while uploading. */
  progress: number;
  name: string;
}

/** Props of one field. */
export interface FieldProps {
  field: Field;
  value: PostedValue | undefined;
  error: string | undefined;
  file?: FileState;
  /** Hidden by its condition (or its step's). */
  hidden?: boolean;
  /** A computed field's current value. */
  computed?: unknown;
  /** Option value to the text shown. */
  optionTexts?: Record<string, string>;
  /** A single select's empty first option, in the page's language. */
  choose: string;
  /**
   * Whether the browser may enforce `required`: not on a field shown under a condition,
   * which a page without JavaScript cannot evaluate (the server checks it).
   */
  enforceRequired: boolean;
}

function first(v: PostedValue | undefined): string {
  return Array.isArray(v) ? (v[v.length - 1] ?? "") : (v ?? "");
}

function all(v: PostedValue | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** The visible mark; controls carry `required`, a checkbox group says it in words. */
function RequiredMark({ field }: { field: Field }) {
  if (!field.required) return null;
  return (
    <>
      <span class="required" aria-hidden="true">*</span>
      {field.type === "multiselect" && <span class="visually-hidden">(required)</span>}
    </>
  );
}

/** The error line (always present, so screen readers hear it appear via aria-live). */
function ErrorLine({ id, error }: { id: string; error: string | undefined }) {
  return <p id={id} class="field-error" aria-live="polite">{error ?? ""}</p>;
}

/**
 * A computed field: its value as a read-only output, updated live, and its error (a total
 * over its field's `max`, say) beside it like any field's.
 */
function ComputedRow({ field, computed, hidden, error }: FieldProps) {
  const id = ids(field);
  const help = field.help ?? "";
  const describedBy = [help ? id.help : "", id.error].filter(Boolean).join(" ");
  return (
    <div class={`field computed${error ? " has-error" : ""}`} hidden={hidden || undefined}>
      <label for={id.control}>{field.label || field.name}</label>
      {help && <p id={id.help} class="help">{help}</p>}
      <output id={id.control} aria-describedby={describedBy} aria-live="polite">
        {computed === undefined || computed === null ? "—" : String(computed)}
      </output>
      <ErrorLine id={id.error} error={error} />
    </div>
  );
}

/** One field of the form. */
export function FieldRow(props: FieldProps) {
  const { field, value, error, file, hidden, optionTexts, choose, enforceRequired } = props;
  if (field.compute !== undefined) return <ComputedRow {...props} />;
  const id = ids(field);
  const isRequired = field.required && enforceRequired ? true : undefined;
  const text = (o: string) => optionTexts?.[o] || o;
  const label = field.label || field.name;
  const help = isFileField(field) ? fileHelp(field) : (field.help ?? "");
  const describedBy = [help ? id.help : "", id.error].filter(Boolean).join(" ");
  const invalid = error ? "true" as const : undefined;
  if (field.type === "hidden") {
    return <input type="hidden" name={field.name} value={SSR ? first(value) : undefined} />;
  }
  const helpLine = help ? <p id={id.help} class="help">{help}</p> : null;

  if (field.type === "radio" || field.type === "multiselect") {
    const type = field.type === "radio" ? "radio" : "checkbox";
    const chosen = all(value);
    return (
      <fieldset
        class={`field choices${error ? " has-error" : ""}`}
        id={id.control}
        aria-describedby={describedBy}
        aria-invalid={invalid}
        tabIndex={-1}
        hidden={hidden || undefined}
      >
        <legend>
          {label}
          <RequiredMark field={field} />
        </legend>
        {helpLine}
        {(field.options ?? []).map((o, i) => (
          <label class="choice" key={o}>
            <input
              type={type}
              name={field.name}
              value={o}
              id={`${id.control}-${i}`}
              checked={SSR ? chosen.includes(o) : undefined}
              required={type === "radio" ? isRequired : undefined}
            />{" "}
            {text(o)}
          </label>
        ))}
        <ErrorLine id={id.error} error={error} />
      </fieldset>
    );
  }

  if (field.type === "boolean") {
    return (
      <div class={`field${error ? " has-error" : ""}`} hidden={hidden || undefined}>
        <label class="choice" for={id.control}>
          <input
            type="checkbox"
            id={id.control}
            name={field.name}
            value="true"
            checked={SSR ? ["true", "on", "1", "yes"].includes(first(value)) : undefined}
            required={isRequired}
            aria-invalid={invalid}
            aria-describedby={describedBy}
          />{" "}
          {label}
          <RequiredMark field={field} />
        </label>
        {helpLine}
        <ErrorLine id={id.error} error={error} />
      </div>
    );
  }

  const common = {
    id: id.control,
    name: field.name,
    required: isRequired,
    "aria-invalid": invalid,
    "aria-describedby": describedBy,
  };
  let control;
  if (field.type === "textarea") {
    control = (
      <textarea
        {...common}
        minLength={field.minLength}
        maxLength={field.maxLength}
        placeholder={field.placeholder}
        rows={5}
      >
        {first(value)}
      </textarea>
    );
  } else if (field.type === "select") {
    const v = first(value);
    control = (
      <select {...common}>
        <option value="" selected={v === ""}>{choose}</option>
        {(field.options ?? []).map((o) => (
          <option value={o} key={o} selected={v === o}>{text(o)}</option>
        ))}
      </select>
    );
  } else if (isFileField(field)) {
    control = (
      <>
        <input {...common} type="file" accept={acceptFor(field)} />
        {file && (
          <div class="upload" aria-live="polite">
            {file.status === "uploading" && (
              <progress max={1} value={file.progress} aria-label={`Uploading ${file.name}`} />
            )}
            <span class="help">
              {file.status === "uploading"
                ? `Uploading ${file.name}… ${Math.round(file.progress * 100)}%`
                : file.status === "done"
                ? `Uploaded ${file.name}.`
                : ""}
            </span>
          </div>
        )}
      </>
    );
  } else {
    const type = inputTypeOf(field);
    const numeric = field.type === "number" || field.type === "integer";
    control = (
      <input
        {...common}
        // The union of input types defeats Preact's per-type attribute typing.
        type={type as "text"}
        value={SSR ? first(value) : undefined}
        minLength={numeric ? undefined : field.minLength}
        maxLength={numeric ? undefined : field.maxLength}
        min={field.min !== undefined ? String(field.min) : undefined}
        max={field.max !== undefined ? String(field.max) : undefined}
        step={field.type === "integer" ? "1" : field.type === "number" ? "any" : undefined}
        placeholder={field.placeholder}
        autocomplete={field.type === "email" ? "email" : field.type === "tel" ? "tel" : undefined}
      />
    );
  }
  return (
    <div class={`field${error ? " has-error" : ""}`} hidden={hidden || undefined}>
      <label for={id.control}>
        {label}
        <RequiredMark field={field} />
      </label>
      {helpLine}
      {control}
      <ErrorLine id={id.error} error={error} />
    </div>
  );
}
