/**
 * The hosted form page, `GET /f/:public_id`: the form rendered on the server (works with
 * JavaScript off) inside the HostedForm island.
 * @module
 */
import { AppError } from "@/lib/errors.ts";
import { requireLiveForm } from "@/lib/forms/forms.ts";
import { clientIp } from "@/lib/http/http.ts";
import { enforceLimit, ipIdentity } from "@/lib/ratelimit/rate_limit.ts";
import { type Form, isFileType } from "@/lib/schemas.ts";
import type { HostedFormProps, PostedValue } from "@/islands/hosted/types.ts";
import { page } from "@/lib/ui/define.ts";
import { errorPage, MessagePage, notFoundPage } from "./_message.tsx";
import { define, formPageHeaders } from "./_page.ts";
import { FormPage, formPageProps, pageLanguage } from "./_form_page.tsx";
import { localize } from "@/lib/forms/localize.ts";
import { uiText } from "@/lib/rules/mod.ts";
import { requireDraft } from "@/lib/drafts/store.ts";
import { draftIdOfToken } from "@/lib/drafts/token.ts";
import type { Draft } from "@/lib/drafts/types.ts";

/** A field's `default` as the page's initial value (a post's strings). */
function initial(value: unknown): PostedValue | undefined {
  if (Array.isArray(value)) return value.map(String);
  if (value === undefined || value === null || typeof value === "object") return undefined;
  if (value === false) return undefined;
  return String(value);
}

/**
 * The form's initial values: each field's `default`, then any field named in the query
 * string (`?email=a@b.c&utm_source=x`: campaign tags into hidden fields is the usual use).
 * Computed fields and files are never prefilled.
 */
function prefill(form: Form, url: URL): Record<string, PostedValue> {
  const values: Record<string, PostedValue> = {};
  for (const f of form.fields) {
    if (isFileType(f.type) || f.compute !== undefined) continue;
    const got = url.searchParams.getAll(f.name).map((v) => v.slice(0, 2000));
    const value = got.length
      ? (f.type === "multiselect" ? got : got[got.length - 1])
      : initial(f.default);
    if (value !== undefined) values[f.name] = value;
  }
  return values;
}

/**
 * The draft a resume link (`?resume=<token>`) names, when it is live: the page is then
 * rendered with its values, so the link also works without JavaScript. A wrong or expired
 * token shows the form as it is.
 */
async function resumed(
  deps: Parameters<typeof requireDraft>[0],
  form: Form,
  token: string | null,
): Promise<Draft | null> {
  const id = token && form.drafts?.enabled ? draftIdOfToken(token) : null;
  if (!id) return null;
  try {
    return (await requireDraft(deps, form, id, token)).value;
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return null;
    throw err;
  }
}

/** A draft's values as the page's initial values (files are never refilled). */
function draftPageValues(form: Form, draft: Draft): Record<string, PostedValue> {
  const values: Record<string, PostedValue> = {};
  for (const f of form.fields) {
    if (isFileType(f.type) || f.compute !== undefined) continue;
    const v = initial(draft.data[f.name]);
    if (v !== undefined) values[f.name] = v;
  }
  return values;
}

/** The form and its island's props; `props` is null while the form is closed. */
interface Data {
  form: Form;
  props: HostedFormProps | null;
  lang: string;
}

/** GET renders the form (prefilled from the query), or says it is closed. */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const { deps, c } = ctx;
    try {
      await enforceLimit(deps, {
        route: "schema",
        identity: ipIdentity(clientIp(c, deps.config.trustProxy)),
        perMinute: deps.config.rateLimits.schema,
      });
      const { form } = await requireLiveForm(deps, ctx.params.id ?? "");
      const lang = pageLanguage(form, c);
      const draft = form.accepting
        ? await resumed(deps, form, ctx.url.searchParams.get("resume"))
        : null;
      const values = prefill(form, ctx.url);
      if (draft) Object.assign(values, draftPageValues(form, draft));
      const props = form.accepting
        ? formPageProps(deps, form, { values, lang, draftId: draft?.id })
        : null;
      return page({ form, props, lang }, {
        title: localize(form, lang).title,
        // A page holding a visitor's saved answers is never cached, and its address (the
        // resume token) never leaves as a referrer (`same-origin`: `no-referrer` would
        // make the browser send `Origin: null` with the page's own post).
        headers: {
          ...formPageHeaders(form, deps.config),
          ...(draft ? { "Cache-Control": "no-store", "Referrer-Policy": "same-origin" } : {}),
        },
        lang,
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return err.status === 404 ? notFoundPage() : errorPage(err.status, err.message);
    }
  },
});

/** The form page, or the closed message. */
export default define.page<typeof handler>(function HostedFormPage({ data }) {
  if (!data.props) {
    return (
      <MessagePage
        heading={localize(data.form, data.lang).title}
        message={uiText(data.lang, "closed")}
      />
    );
  }
  return <FormPage form={data.form} props={data.props} />;
});
