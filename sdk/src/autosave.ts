/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * `enhance(form, {autosave: true})`: the form's draft is read back into its controls when
 * the page opens (from a `?resume=` link or this browser), and saved as the visitor types,
 * after a quiet moment. The form carries `data-fw-draft` (`saving`, `saved`, `queued` when
 * it waits to be sent, `error`) for a page to show discreetly.
 * @module
 */
import type { DraftSaved, ResumedDraft } from "./drafts.ts";
import type { PublicSchema } from "./types.ts";

/** Milliseconds of quiet before a save (default of `autosave.delayMs`). */
export const AUTOSAVE_DELAY_MS = 1200;

/** What autosave uses of the client. */
export interface AutosaveClient {
  schema(publicId: string): Promise<PublicSchema>;
  saveDraft(publicId: string, data: Record<string, unknown>): Promise<DraftSaved>;
  resume(publicId: string): Promise<ResumedDraft | null>;
}

/** The schema's non-file field values of a form, typed as a submit types them. */
export function draftData(form: HTMLFormElement, schema: PublicSchema): Record<string, unknown> {
  const fd = new FormData(form);
  const data: Record<string, unknown> = {};
  for (const f of schema.form.fields) {
    if (["file", "image", "signature", "video", "audio"].includes(f.type)) continue;
    const all = fd.getAll(f.name).filter((v): v is string => typeof v === "string");
    if (f.type === "multiselect") {
      if (all.length) data[f.name] = all;
      continue;
    }
    const v = all[all.length - 1];
    if (v === undefined || v === "") continue;
    if (f.type === "number" || f.type === "integer") {
      data[f.name] = isNaN(Number(v)) ? v : Number(v);
    } else if (f.type === "boolean") data[f.name] = true;
    else data[f.name] = v;
  }
  return data;
}

/** Puts a draft's values into the form's controls. */
export function fillControls(form: HTMLFormElement, data: Record<string, unknown>): void {
  for (const [name, v] of Object.entries(data)) {
    for (const el of form.querySelectorAll<HTMLInputElement>(`[name="${CSS.escape(name)}"]`)) {
      if (el.type === "file") continue;
      if (el.type === "checkbox" || el.type === "radio") {
        el.checked = Array.isArray(v) ? v.includes(el.value) : v === true || v === el.value;
      } else if (el instanceof HTMLSelectElement && el.multiple && Array.isArray(v)) {
        for (const o of el.options) o.selected = v.includes(o.value);
      } else el.value = v === null || v === undefined ? "" : String(v);
    }
  }
}

/** Starts autosaving `form`; returns a function that stops it. */
export function autosave(
  fw: AutosaveClient,
  form: HTMLFormElement,
  publicId: string,
  delayMs = AUTOSAVE_DELAY_MS,
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const mark = (s: string) => (form.dataset.fwDraft = s);
  fw.resume(publicId).then((d) => {
    if (d) {
      fillControls(form, d.data);
      mark("saved");
    }
  }, () => {});
  const save = async () => {
    const schema = await fw.schema(publicId).catch(() => null);
    if (!schema) return;
    mark("saving");
    try {
      const saved = await fw.saveDraft(publicId, draftData(form, schema));
      mark(saved.queued ? "queued" : "saved");
    } catch {
      mark("error");
    }
  };
  const onInput = () => {
    clearTimeout(timer);
    timer = setTimeout(save, delayMs);
  };
  form.addEventListener("input", onInput);
  form.addEventListener("change", onInput);
  return () => {
    clearTimeout(timer);
    form.removeEventListener("input", onInput);
    form.removeEventListener("change", onInput);
  };
}
