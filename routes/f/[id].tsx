/**
 * The hosted form page, `GET /f/:public_id`: the form rendered on the server (works with
 * JavaScript off) inside the HostedForm island. The no-JS submit path re-renders it with
 * the posted values and the errors through {@linkcode renderFormPage}.
 * @module
 */
import type { Deps } from "../../lib/deps.ts";
import { captchaScriptUrl, captchaWidgetHtml } from "../../lib/embed.ts";
import { AppError, type FieldError } from "../../lib/errors.ts";
import { requireLiveForm } from "../../lib/forms.ts";
import { clientIp } from "../../lib/http.ts";
import { randomBase62 } from "../../lib/ids.ts";
import { enforceLimit, ipIdentity } from "../../lib/rate_limit.ts";
import { allowedRedirect, thanksPath } from "../../lib/redirects.ts";
import { type Form, isFileType } from "../../lib/schemas.ts";
import { Island } from "../../lib/ui/island.tsx";
import HostedForm from "../../islands/HostedForm.tsx";
import type { HostedFormProps, HostedNotice, PostedValue } from "../../islands/hosted/types.ts";
import { errorPage, MessagePage, notFoundPage } from "./_message.tsx";
import { type HostedContext, htmlPage } from "./_page.ts";

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
  };
}

/** The page body: heading, the island, the CAPTCHA provider's script. */
export default function FormPage({ form, props }: { form: Form; props: HostedFormProps }) {
  const script = captchaScriptUrl(form, "");
  return (
    <main class="container hosted-page">
      <h1>{form.name}</h1>
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
    body: <FormPage form={form} props={props} />,
  });
}

/** Values from the query string prefill the form (hidden fields such as a campaign). */
function prefill(form: Form, url: URL): Record<string, PostedValue> {
  const values: Record<string, PostedValue> = {};
  for (const f of form.fields) {
    if (isFileType(f.type)) continue;
    const got = url.searchParams.getAll(f.name).map((v) => v.slice(0, 2000));
    if (got.length) values[f.name] = f.type === "multiselect" ? got : got[got.length - 1];
  }
  return values;
}

/** GET handler. */
export const handler = {
  async GET(ctx: HostedContext): Promise<Response> {
    const { deps, c } = ctx;
    try {
      await enforceLimit(deps, {
        route: "schema",
        identity: ipIdentity(clientIp(c, deps.config.trustProxy)),
        perMinute: deps.config.rateLimits.schema,
      });
      const { form } = await requireLiveForm(deps, ctx.params.id ?? "");
      if (!form.accepting) {
        return htmlPage({
          title: form.name,
          body: (
            <MessagePage
              heading={form.name}
              message="This form is not accepting responses right now."
            />
          ),
        });
      }
      return renderFormPage(deps, form, { values: prefill(form, ctx.url) });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return err.status === 404 ? notFoundPage() : errorPage(err.status, err.message);
    }
  },
};
