/**
 * The hosted thank-you page, `GET /f/:public_id/thanks?submission_id=...`, where a stored
 * submission lands when neither the post nor the form names a redirect.
 * @module
 */
import { AppError } from "@/lib/errors.ts";
import { requireLiveForm } from "@/lib/forms/forms.ts";
import type { Form } from "@/lib/schemas.ts";
import { errorPage, notFoundPage } from "@/routes/f/_message.tsx";
import { page } from "@/lib/ui/define.ts";
import { PlainText } from "@/components/text.tsx";
import { define } from "@/routes/f/_page.ts";
import { pageLanguage } from "@/routes/f/_form_page.tsx";
import { localize, type LocalizedTexts } from "@/lib/forms/localize.ts";
import { uiText } from "@/lib/rules/mod.ts";

interface Data {
  form: Pick<Form, "id">;
  /** The form's title and success text in the page's language. */
  texts: Pick<LocalizedTexts, "title" | "success">;
  lang: string;
  /** `?lang=` for the link back, when the page was asked in a language. */
  langQuery: string;
  /** Shown only when it looks like a submission id. */
  reference: string | null;
}

/** The thank-you page body. */
export default define.page<typeof handler>(function ThanksPage({ data }) {
  const { form, texts, reference } = data;
  return (
    <main class="container hosted-page">
      <h1>{uiText(data.lang, "thanks")}</h1>
      <div class="notice ok" role="status">
        {texts.success
          ? <PlainText text={texts.success} />
          : <p>{uiText(data.lang, "received", { form: texts.title })}</p>}
      </div>
      {reference && (
        <p class="help">
          {uiText(data.lang, "reference")} <code>{reference}</code>
        </p>
      )}
      <p>
        <a href={`/f/${encodeURIComponent(form.id)}${data.langQuery}`}>
          {uiText(data.lang, "another")}
        </a>
      </p>
      <p class="powered muted">{uiText(data.lang, "powered")}</p>
    </main>
  );
});

/** GET handler. The reference is shown only when it looks like a submission id. */
export const handler = define.handlers<Data>({
  async GET({ deps, params, url, c }) {
    try {
      const { form } = await requireLiveForm(deps, params.id ?? "");
      const id = url.searchParams.get("submission_id");
      const reference = id && /^sub_[0-9a-z]{26}$/.test(id) ? id : null;
      const lang = pageLanguage(form, c);
      const { title, success } = localize(form, lang);
      const asked = url.searchParams.get("lang");
      const langQuery = asked && lang !== (form.default_language ?? "en")
        ? `?lang=${encodeURIComponent(lang)}`
        : "";
      return page(
        { form: { id: form.id }, texts: { title, success }, lang, langQuery, reference },
        {
          title: `${uiText(lang, "thanks")} · ${title}`,
          lang,
        },
      );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return err.status === 404 ? notFoundPage() : errorPage(err.status, err.message);
    }
  },
});
