/**
 * The hosted form page's body and renderer, shared by `GET /f/:id` and the no-JS submit
 * path (which re-renders it with the posted values and the errors).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { captchaScriptUrl, captchaWidgetHtml } from "@/lib/forms/embed.ts";
import type { FieldError } from "@/lib/errors.ts";
import { randomBase62 } from "@/lib/ids.ts";
import { allowedRedirect, thanksPath } from "@/lib/http/redirects.ts";
import type { Form } from "@/lib/schemas.ts";
import { localize } from "@/lib/forms/localize.ts";
import { isRtl, pickLanguage, uiText } from "@/lib/rules/mod.ts";
import type { Context } from "hono";
import type { AppEnv } from "@/lib/http/http.ts";
import { Island } from "@/lib/ui/island.tsx";
import { PlainText } from "@/components/text.tsx";
import HostedForm from "@/islands/HostedForm.tsx";
import type { HostedFormProps, HostedNotice, PostedValue } from "@/islands/hosted/types.ts";
import { formPageHeaders, htmlPage } from "./_page.ts";

/** What a re-render carries over from a refused post. */
export interface FormPageState {
  values?: Record<string, PostedValue>;
  errors?: FieldError[];
  notice?: HostedNotice | null;
  /** Kept across a re-render unless the refusal means it was spent. */
  idempotencyKey?: string;
  /** The post's `_redirect`, carried only when it may be followed. */
  redirect?: string;
  /** The page's language (one of the form's; default: its default language). */
  lang?: string;
  /** The visitor's draft the page continues (a resume link, or a refused post of one). */
  draftId?: string;
}

/** The language a hosted page of `form` is shown in: `?lang=`, else `Accept-Language`. */
export function pageLanguage(form: Form, c: Context<AppEnv>): string {
  return pickLanguage(form, c.req.query("lang") ?? null, c.req.header("accept-language") ?? null);
}

/** A fresh one-time key: one per rendered page, so a double post stores once. */
export function newPageKey(): string {
  return `hf_${randomBase62(24)}`;
}

/** Whether a posted `_idempotency_key` is one a hosted page rendered. */
export function isHostedPageKey(key: string | undefined): boolean {
  return key !== undefined && /^hf_[0-9A-Za-z]{24}$/.test(key);
}

/** The island's props for a form and a page state. */
export function formPageProps(deps: Deps, form: Form, state: FormPageState): HostedFormProps {
  const base = deps.config.baseUrl;
  const redirect = allowedRedirect(state.redirect, form, base);
  const lang = state.lang ?? form.default_language ?? "en";
  const texts = localize(form, lang);
  const thanks = new URL(thanksPath(form.id), "http://x");
  if (lang !== (form.default_language ?? "en")) thanks.searchParams.set("lang", lang);
  const errors: Record<string, string> = {};
  for (const e of state.errors ?? []) {
    if (form.fields.some((f) => f.name === e.field)) errors[e.field] ??= e.message;
  }
  return {
    formId: form.id,
    fields: texts.fields,
    schemaVersion: form.schema_version,
    honeypot: form.honeypot,
    captcha: form.captcha && form.captcha.provider !== "none"
      ? {
        provider: form.captcha.provider,
        siteKey: form.captcha.siteKey ?? null,
        version: form.captcha.version,
        action: form.captcha.action,
        widgetHtml: captchaWidgetHtml(form, ""),
      }
      : null,
    // The language rides along, so a refused post is shown again in it.
    action: `/api/v1/submit/p/${encodeURIComponent(form.id)}${
      lang === (form.default_language ?? "en") ? "" : `?lang=${encodeURIComponent(lang)}`
    }`,
    apiBase: "/api/v1",
    idempotencyKey: state.idempotencyKey ?? newPageKey(),
    values: state.values ?? {},
    errors,
    notice: state.notice ?? null,
    successUrl: redirect?.toString() ?? form.redirect.success ??
      `${thanks.pathname}${thanks.search}`,
    redirect: redirect ? state.redirect!.trim() : null,
    submitLabel: texts.submit || uiText(lang, "submit"),
    lang,
    dir: isRtl(lang) ? "rtl" : "ltr",
    optionTexts: texts.optionTexts,
    steps: (form.steps ?? []).map((s, i) => ({
      title: texts.stepTitles[i],
      fields: [...s.fields],
      ...(s.when !== undefined ? { when: s.when } : {}),
    })),
    drafts: form.drafts?.enabled
      ? { ttlDays: form.drafts.ttl_days, draftId: state.draftId ?? null }
      : null,
  };
}

/** The page body: heading, the island, the CAPTCHA provider's script. */
export function FormPage({ form, props }: { form: Form; props: HostedFormProps }) {
  const script = captchaScriptUrl(form, "");
  // The note's words around the mark, in the page's language.
  const [before, after = ""] = uiText(props.lang, "required_note", { mark: "\u0000" }).split(
    "\u0000",
  );
  return (
    <main class="container hosted-page">
      <h1>{localize(form, props.lang).title}</h1>
      {form.intro && <PlainText text={form.intro} class="intro" />}
      {form.fields.some((f) => f.required) && (
        <p class="help">
          {before}
          <span class="required" aria-hidden="true">*</span>
          <span class="visually-hidden">{uiText(props.lang, "required_mark")}</span>
          {after}
        </p>
      )}
      <Island name="HostedForm" component={HostedForm} props={props} />
      {script && (form.captcha?.provider === "altcha"
        ? <script type="module" src={script} async />
        : <script src={script} async defer />)}
      <p class="powered muted">{uiText(props.lang, "powered")}</p>
    </main>
  );
}

/** Renders the form page with a state and a status (the no-JS error path uses it). */
export function renderFormPage(
  deps: Deps,
  form: Form,
  state: FormPageState = {},
  status = 200,
): Response {
  const props = formPageProps(deps, form, state);
  const failed = status >= 400;
  const title = localize(form, props.lang).title;
  return htmlPage({
    title: failed ? `Error: ${title}` : title,
    lang: props.lang,
    status,
    store: !failed,
    headers: formPageHeaders(form, deps.config),
    body: <FormPage form={form} props={props} />,
  });
}
