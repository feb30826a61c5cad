/**
 * The copy-paste embed snippet of a form: a plain HTML `<form>` that posts to the no-JS
 * submit path, with every field labelled, the honeypot hidden from people and screen
 * readers, and the CAPTCHA widget of the form's provider, in one of the form's languages
 * (its texts, and the page's own words: the select prompt, the button). Works without
 * JavaScript (except the CAPTCHA widgets, which need it by nature).
 * @module
 */
import { type Field, type Form, isFileType } from "@/lib/schemas.ts";
// One definition for the server snippet and the browser island (a pure module).
import { inputTypeOf } from "@/components/fields.ts";
import { isRtl, uiText } from "@/lib/rules/mod.ts";
import { localize } from "./localize.ts";

/** Escapes text for HTML content and double-quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** The hosted page of a form. */
export function hostedFormUrl(form: Pick<Form, "id">, baseUrl: string): string {
  return `${baseUrl}/f/${encodeURIComponent(form.id)}`;
}

/** The provider script a CAPTCHA widget needs, or null (none configured). */
export function captchaScriptUrl(form: Pick<Form, "captcha">, baseUrl: string): string | null {
  const c = form.captcha;
  switch (c?.provider) {
    case "turnstile":
      return "https://challenges.cloudflare.com/turnstile/v0/api.js";
    case "hcaptcha":
      return "https://js.hcaptcha.com/1/api.js";
    case "recaptcha":
      return c.version === "v3"
        ? `https://www.google.com/recaptcha/api.js?render=${encodeURIComponent(c.siteKey ?? "")}`
        : "https://www.google.com/recaptcha/api.js";
    case "altcha":
      return `${baseUrl}/_vendor/altcha.js`;
    default:
      return null;
  }
}

/** The ALTCHA challenge endpoint of a form. */
export function altchaChallengeUrl(form: Pick<Form, "id">, baseUrl: string): string {
  return `${baseUrl}/api/v1/forms/p/${encodeURIComponent(form.id)}/altcha-challenge`;
}

/** The widget element of the form's CAPTCHA provider (HTML), or "" when none. */
export function captchaWidgetHtml(form: Pick<Form, "id" | "captcha">, baseUrl: string): string {
  const c = form.captcha;
  const key = escapeHtml(c?.siteKey ?? "");
  switch (c?.provider) {
    case "turnstile":
      return `<div class="cf-turnstile" data-sitekey="${key}"></div>`;
    case "hcaptcha":
      return `<div class="h-captcha" data-sitekey="${key}"></div>`;
    case "recaptcha":
      return c.version === "v3" ? "" : `<div class="g-recaptcha" data-sitekey="${key}"></div>`;
    case "altcha":
      return `<altcha-widget challenge="${
        escapeHtml(altchaChallengeUrl(form, baseUrl))
      }" name="altcha"></altcha-widget>`;
    default:
      return "";
  }
}

/** The `accept` attribute of a file-like field. */
export function acceptOf(field: Pick<Field, "type" | "allowedTypes">): string | undefined {
  if (field.allowedTypes?.length) return field.allowedTypes.join(",");
  return { image: "image/*", signature: "image/*", video: "video/*", audio: "audio/*" }[
    field.type as string
  ];
}

/** A field's `default` as an attribute value ("" for none). */
function defaultText(f: Field): string {
  const v = f.default;
  return typeof v === "string" || typeof v === "number" ? escapeHtml(String(v)) : "";
}

/** A snippet's words in its language: the select prompt and each field's option texts. */
interface SnippetWords {
  choose: string;
  optionTexts: Record<string, Record<string, string>>;
}

function fieldHtml(f: Field, conditional: boolean, words: SnippetWords): string {
  const id = `fw-${escapeHtml(f.id)}`;
  const name = escapeHtml(f.name);
  const label = escapeHtml(f.label ?? f.name);
  if (f.compute !== undefined) {
    return `  <!-- ${name} is computed by Formwell from the other fields: no input. -->`;
  }
  // A page without the rules cannot tell when a conditional field is needed: the server does.
  const req = f.required && !conditional ? " required" : "";
  const mark = f.required ? ` <span aria-hidden="true">*</span>` : "";
  const attrs = [
    f.minLength !== undefined ? ` minlength="${f.minLength}"` : "",
    f.maxLength !== undefined ? ` maxlength="${f.maxLength}"` : "",
    f.pattern !== undefined ? ` pattern="${escapeHtml(f.pattern)}"` : "",
    f.min !== undefined ? ` min="${escapeHtml(String(f.min))}"` : "",
    f.max !== undefined ? ` max="${escapeHtml(String(f.max))}"` : "",
    f.placeholder ? ` placeholder="${escapeHtml(f.placeholder)}"` : "",
  ].join("");
  const opts = (f.options ?? []).map(escapeHtml);
  const shown = (f.options ?? []).map((o) => escapeHtml(words.optionTexts[f.name]?.[o] || o));
  if (f.type === "hidden") {
    return `  <input type="hidden" name="${name}" value="${defaultText(f)}">`;
  }
  if (f.type === "radio" || f.type === "multiselect") {
    const type = f.type === "radio" ? "radio" : "checkbox";
    const items = opts.map((o, i) =>
      `    <label><input type="${type}" name="${name}" value="${o}"${
        type === "radio" ? req : ""
      }> ${shown[i]}</label>`
    );
    return `  <fieldset>\n    <legend>${label}${mark}</legend>\n${items.join("\n")}\n  </fieldset>`;
  }
  let control: string;
  if (f.type === "textarea") {
    control = `<textarea id="${id}" name="${name}"${req}${attrs}></textarea>`;
  } else if (f.type === "select") {
    const options = opts.map((o, i) => `<option value="${o}">${shown[i]}</option>`).join("");
    control = `<select id="${id}" name="${name}"${req}><option value="">${
      escapeHtml(words.choose)
    }</option>${options}</select>`;
  } else if (f.type === "boolean") {
    return `  <p><label><input type="checkbox" name="${name}" value="true"${req}> ${label}${mark}</label></p>`;
  } else if (isFileType(f.type)) {
    const accept = acceptOf(f);
    control = `<input id="${id}" type="file" name="${name}"${
      accept ? ` accept="${escapeHtml(accept)}"` : ""
    }${req}>`;
  } else {
    const value = defaultText(f) ? ` value="${defaultText(f)}"` : "";
    control = `<input id="${id}" type="${inputTypeOf(f)}" name="${name}"${value}${req}${attrs}${
      f.type === "number" ? ' step="any"' : ""
    }>`;
  }
  return `  <p>\n    <label for="${id}">${label}${mark}</label>\n    ${control}\n  </p>`;
}

/** Whether a field is shown only under a condition (its own or its step's). */
function isConditional(form: Pick<Form, "steps">, f: Field): boolean {
  return f.when !== undefined ||
    (form.steps ?? []).some((s) => s.when !== undefined && s.fields.includes(f.name));
}

/**
 * Fills the snippet's hidden fields from the page's own address (`?utm_source=...`), as the
 * hosted page does: campaign tags reach the submission without a visible input.
 */
function prefillScript(form: Pick<Form, "id">): string[] {
  const id = JSON.stringify(embedFormId(form));
  return [
    `<script>`,
    `  // Hidden fields take their value from this page's address: ?utm_source=newsletter`,
    `  const fwForm = document.getElementById(${id});`,
    `  for (const [name, value] of new URLSearchParams(location.search)) {`,
    `    const input = fwForm.querySelector('input[type="hidden"][name="' + CSS.escape(name) + '"]');`,
    `    if (input) input.value = value;`,
    `  }`,
    `</script>`,
  ];
}

/** The `id` of the snippet's `<form>` element (the client snippet finds the form by it). */
export function embedFormId(form: Pick<Form, "id">): string {
  return `formwell-${form.id}`;
}

/**
 * The copy-paste plain-HTML embed snippet of a form in `lang` (one of its languages; the
 * default language's snippet carries no `lang` attribute: the site's page sets it).
 */
export function embedSnippet(form: Form, baseUrl: string, lang?: string): string {
  const base = form.default_language ?? "en";
  const language = lang ?? base;
  const texts = localize(form, language);
  const words = { choose: uiText(language, "choose"), optionTexts: texts.optionTexts };
  const action = `${baseUrl}/api/v1/submit/p/${encodeURIComponent(form.id)}`;
  const multipart = form.fields.some((f) => isFileType(f.type));
  const langAttrs = language === base
    ? ""
    : ` lang="${escapeHtml(language)}"${isRtl(language) ? ' dir="rtl"' : ""}`;
  const lines = [
    `<form id="${escapeHtml(embedFormId(form))}" action="${escapeHtml(action)}" method="POST"${
      multipart ? ' enctype="multipart/form-data"' : ""
    }${langAttrs}>`,
    `  <!-- Optional: where to go after submitting (same origin as Formwell or one of the`,
    `       form's allowed origins). Without it, the form's own redirect or Formwell's`,
    `       thank-you page is used. -->`,
    `  <!-- <input type="hidden" name="_redirect" value="https://your-site.example/thanks"> -->`,
    ...texts.fields.map((f) => fieldHtml(f, isConditional(form, f), words)),
  ];
  if (form.honeypot) {
    const hp = escapeHtml(form.honeypot);
    lines.push(
      `  <div aria-hidden="true" style="position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden">`,
      `    <label>Leave this empty <input type="text" name="${hp}" tabindex="-1" autocomplete="off"></label>`,
      `  </div>`,
    );
  }
  const widget = captchaWidgetHtml(form, baseUrl);
  if (widget) lines.push(`  ${widget}`);
  const submit = texts.submit || uiText(language, "submit");
  lines.push(`  <button type="submit">${escapeHtml(submit)}</button>`, `</form>`);
  if (form.fields.some((f) => f.type === "hidden")) lines.push(...prefillScript(form));
  const script = captchaScriptUrl(form, baseUrl);
  if (script) {
    lines.push(
      form.captcha?.provider === "altcha"
        ? `<script type="module" src="${escapeHtml(script)}" async defer></script>`
        : `<script src="${escapeHtml(script)}" async defer></script>`,
    );
  }
  return lines.join("\n") + "\n";
}
