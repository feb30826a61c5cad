/**
 * The hosted form page's body and renderer, shared by `GET /f/:id` and the no-JS submit
 * path (which re-renders it with the posted values and the errors).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { captchaScriptUrl, captchaWidgetHtml } from "@/lib/forms/embed.ts";
import type { FieldError } from "@/lib/errors.ts";
import { randomBase62 } from "@/lib/ids.ts";
import { allowedRedirect, thanksPath } from "@/lib/submissions/redirects.ts";
import type { Form } from "@/lib/schemas.ts";
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
  const errors: Record<string, string> = {};
  for (const e of state.errors ?? []) {
    if (form.fields.some((f) => f.name === e.field)) errors[e.field] ??= e.message;
  }
  return {
    formId: form.id,
    fields: form.fields,
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
    action: `/api/v1/submit/p/${encodeURIComponent(form.id)}`,
    apiBase: "/api/v1",
    idempotencyKey: state.idempotencyKey ?? newPageKey(),
    values: state.values ?? {},
    errors,
    notice: state.notice ?? null,
    successUrl: redirect?.toString() ?? form.redirect.success ?? thanksPath(form.id),
    redirect: redirect ? state.redirect!.trim() : null,
    submitLabel: "Send",
    drafts: form.drafts?.enabled ? { ttlDays: form.drafts.ttl_days } : null,
  };
}

/** The page body: heading, the island, the CAPTCHA provider's script. */
export function FormPage({ form, props }: { form: Form; props: HostedFormProps }) {
  const script = captchaScriptUrl(form, "");
  return (
    <main class="container hosted-page">
      <h1>{form.name}</h1>
      {form.intro && <PlainText text={form.intro} class="intro" />}
      {form.fields.some((f) => f.required) && (
        <p class="help">
          Fields marked <span class="required" aria-hidden="true">*</span>
          <span class="visually-hidden">with an asterisk</span> are required.
        </p>
      )}
      <Island name="HostedForm" component={HostedForm} props={props} />
      {script && (form.captcha?.provider === "altcha"
        ? <script type="module" src={script} async />
        : <script src={script} async defer />)}
      <p class="powered muted">Powered by Formwell</p>
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
  return htmlPage({
    title: failed ? `Error: ${form.name}` : form.name,
    status,
    store: !failed,
    headers: formPageHeaders(form, deps.config),
    body: <FormPage form={form} props={props} />,
  });
}
