/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * Progressive enhancement of a plain HTML form that already posts to
 * `/api/v1/submit/p/<id>` without JavaScript: the same form is sent through the client
 * (JSON, files by signed upload, the outbox), errors appear beside their fields (linked by
 * `aria-describedby`) and in a summary that takes focus, the button is disabled while
 * sending, and success shows a message or follows the form's `_redirect`/`_next`.
 * @module
 */
import type { FormwellError } from "./errors.ts";
import type { FieldError, FormField, PublicSchema, SubmitResult } from "./types.ts";
import { autosave, type AutosaveClient } from "./autosave.ts";

/** Callbacks and texts of an enhanced form. */
export interface EnhanceOptions {
  /** The form's public id (default: `data-formwell`, else the action URL's). */
  publicId?: string;
  onSuccess?: (result: SubmitResult) => void;
  onError?: (error: FormwellError) => void;
  /** Shown when the submission was stored (default: `data-success` or a thank-you). */
  successMessage?: string;
  /** Shown when it is kept to be sent later. */
  queuedMessage?: string;
  /**
   * Saves the visitor's progress as a draft while they type and restores it when the page
   * opens again or from a resume link (a form that keeps drafts; see autosave.ts).
   */
  autosave?: boolean | { delayMs?: number };
}

const CAPTCHA = [
  "cf-turnstile-response",
  "h-captcha-response",
  "g-recaptcha-response",
  "altcha",
];
/** Post names the no-JS path reads but never stores (a field of that name wins). */
const RESERVED = [
  "redirect",
  "_idempotency_key",
  "_replyto",
  "_reply_to",
  "_subject",
  "form-name",
];
const HONEYPOTS = ["_gotcha", "bot-field"];
const TRUE = ["on", "true", "1", "yes"];
const FALSE = ["off", "false", "0", "no"];

/** Form values as the JSON submit wants them, typed by the schema (else by the inputs). */
function valueOf(
  form: HTMLFormElement,
  name: string,
  raw: string[],
  f?: FormField,
): unknown {
  const el = form.elements.namedItem(name);
  const input = (el && "type" in el ? el : null) as HTMLInputElement | null;
  const type = f?.type ??
    (input?.type === "number" ? "number" : input?.type === "checkbox" ? "boolean" : "");
  if (
    type === "multiselect" ||
    (!f &&
      (raw.length > 1 || (input as unknown as HTMLSelectElement)?.multiple))
  ) {
    return raw;
  }
  const v = raw[raw.length - 1];
  if (v === "") return undefined;
  if (type === "number" || type === "integer") {
    return isNaN(Number(v)) ? v : Number(v);
  }
  const l = v.toLowerCase();
  if (type === "boolean") {
    return TRUE.includes(l) ? true : FALSE.includes(l) ? false : v;
  }
  return v;
}

/** The error element id of a field (made once). */
function errorId(form: HTMLFormElement, name: string): string {
  return `${form.id || "fw"}-${name.replace(/[^\w-]/g, "_")}-error`;
}

function clear(form: HTMLFormElement): void {
  for (const el of form.querySelectorAll("[data-fw-error]")) el.remove();
  for (const el of form.querySelectorAll<HTMLElement>("[data-fw-described]")) {
    const ids = (el.getAttribute("aria-describedby") ?? "").split(" ")
      .filter((id) => id && id !== el.dataset.fwDescribed);
    if (ids.length) el.setAttribute("aria-describedby", ids.join(" "));
    else el.removeAttribute("aria-describedby");
    el.removeAttribute("aria-invalid");
    delete el.dataset.fwDescribed;
  }
}

function fieldError(form: HTMLFormElement, e: FieldError): HTMLElement | null {
  const found = form.elements.namedItem(e.field);
  const el = (found && "length" in found ? found[0] : found) as
    | HTMLElement
    | null;
  if (!el || el.dataset.fwDescribed) return el;
  const id = errorId(form, e.field);
  const msg = Object.assign(document.createElement("span"), {
    id,
    className: "fw-field-error",
  });
  msg.dataset.fwError = "";
  msg.textContent = e.message;
  (el.closest("label") ?? el).after(msg);
  el.dataset.fwDescribed = id;
  el.setAttribute("aria-invalid", "true");
  el.setAttribute(
    "aria-describedby",
    `${el.getAttribute("aria-describedby") ?? ""} ${id}`.trim(),
  );
  el.id ||= `${id}-field`;
  return el;
}

function showErrors(form: HTMLFormElement, err: FormwellError): void {
  const box = document.createElement("div");
  box.className = "fw-error-summary";
  box.dataset.fwError = "";
  box.setAttribute("role", "alert");
  box.tabIndex = -1;
  const items = err.errors.map((e) => [e, fieldError(form, e)] as const);
  const head = box.appendChild(document.createElement("p"));
  head.textContent = items.length ? "Please correct the following:" : err.message;
  const list = box.appendChild(document.createElement("ul"));
  for (const [e, el] of items) {
    const li = list.appendChild(document.createElement("li"));
    const a = el ? li.appendChild(document.createElement("a")) : li;
    if (el) (a as HTMLAnchorElement).href = `#${el.id}`;
    a.textContent = e.message;
  }
  if (!items.length) list.remove();
  form.prepend(box);
  box.focus();
}

/**
 * What enhance uses of the client (`Formwell` has it), written out so that this module and
 * client.ts, which calls it, do not import each other.
 */
export interface EnhanceClient extends AutosaveClient {
  schema(publicId: string): Promise<PublicSchema>;
  on(
    listener: (
      e: { type: string; publicId: string; restored: boolean },
    ) => void,
  ): () => void;
  submit(
    publicId: string,
    data: Record<string, unknown>,
    opts: {
      files?: Record<string, Blob>;
      captchaToken?: string;
      schemaVersion?: number;
      idempotencyKey?: string;
      onQueued?: () => void;
    },
  ): Promise<SubmitResult>;
}

/** Sends `form` through `fw` on submit; returns a function that stops doing so. */
export function enhanceForm(
  fw: EnhanceClient,
  form: HTMLFormElement,
  opts: EnhanceOptions = {},
) {
  const publicId = opts.publicId ?? form.dataset.formwell ??
    /\/submit\/p\/([^/?#]+)/.exec(form.action)?.[1] ?? "";
  const status = document.createElement("div");
  status.className = "fw-status";
  status.setAttribute("role", "status");
  form.prepend(status);
  // Fetched now so the first send needs no round trip; asked again at a send if it failed.
  fw.schema(publicId).catch(() => {});
  const sent = opts.successMessage ?? form.dataset.success ??
    "Thank you! Your response was sent.";
  const stopSaving = opts.autosave
    ? autosave(fw, form, publicId, opts.autosave === true ? undefined : opts.autosave.delayMs)
    : () => {};
  const stop = fw.on((e) => {
    if (e.type === "sent" && e.restored && e.publicId === publicId) {
      status.textContent = "Your earlier response was sent.";
    }
  });

  async function onSubmit(ev: SubmitEvent): Promise<void> {
    ev.preventDefault();
    const buttons = [
      ...form.querySelectorAll<HTMLButtonElement>("button, input[type=submit]"),
    ]
      .filter((b) => b.type === "submit" && !b.disabled);
    const entries = [...new FormData(form, ev.submitter)];
    for (const b of buttons) b.disabled = true;
    form.setAttribute("aria-busy", "true");
    clear(form);
    status.textContent = "";
    const s: PublicSchema | null = await fw.schema(publicId).catch(() => null);
    const fields = new Map(s?.form.fields.map((f) => [f.name, f]));
    const raw: Record<string, string[]> = {};
    const files: Record<string, Blob> = {};
    const extra: Record<string, string> = {};
    for (const [name, value] of entries) {
      if (typeof value !== "string") {
        if (value.size || value.name) files[name] ??= value;
      } else if (fields.has(name) || name === s?.form.honeypot) {
        (raw[name] ??= []).push(value);
      } else if (HONEYPOTS.includes(name)) {
        if (value && s?.form.honeypot) raw[s.form.honeypot] = [value];
      } else if (
        CAPTCHA.includes(name) || name[0] === "_" || RESERVED.includes(name)
      ) {
        extra[name] = value;
      } else (raw[name] ??= []).push(value);
    }
    const data: Record<string, unknown> = {};
    for (const [name, list] of Object.entries(raw)) {
      const v = valueOf(form, name, list, fields.get(name));
      if (v !== undefined) data[name] = v;
    }
    const redirect = extra._redirect ?? extra._next;
    const version = Number(extra._schema_version) || undefined;
    try {
      const result = await fw.submit(publicId, data, {
        files,
        captchaToken: CAPTCHA.map((c) => extra[c]).find(Boolean),
        schemaVersion: version,
        idempotencyKey: extra._idempotency_key,
        onQueued: () => {
          status.textContent = opts.queuedMessage ??
            "You are offline. Your response is saved on this device and will be sent when the connection is back.";
        },
      }).finally(() => {
        for (const b of buttons) b.disabled = false;
        form.removeAttribute("aria-busy");
      });
      opts.onSuccess?.(result);
      const url = redirect ? new URL(redirect, location.href) : null;
      if (url && /^https?:$/.test(url.protocol)) {
        url.searchParams.set("submission_id", result.submission_id);
        location.assign(url);
        return;
      }
      form.reset();
      status.textContent = sent;
    } catch (err) {
      status.textContent = "";
      showErrors(form, err as FormwellError);
      opts.onError?.(err as FormwellError);
    }
  }

  const listener = (ev: Event) => void onSubmit(ev as SubmitEvent);
  form.addEventListener("submit", listener);
  return () => {
    form.removeEventListener("submit", listener);
    status.remove();
    stop();
    stopSaving();
  };
}
