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

interface Data {
  form: Pick<Form, "id" | "name" | "thank_you">;
  /** Shown only when it looks like a submission id. */
  reference: string | null;
}

/** The thank-you page body. */
export default define.page<typeof handler>(function ThanksPage({ data: { form, reference } }) {
  return (
    <main class="container hosted-page">
      <h1>Thank you</h1>
      <div class="notice ok" role="status">
        {form.thank_you
          ? <PlainText text={form.thank_you} />
          : <p>Your response to “{form.name}” was received.</p>}
      </div>
      {reference && (
        <p class="help">
          Reference: <code>{reference}</code>
        </p>
      )}
      <p>
        <a href={`/f/${encodeURIComponent(form.id)}`}>Send another response</a>
      </p>
      <p class="powered muted">Powered by Formwell</p>
    </main>
  );
});

/** GET handler. The reference is shown only when it looks like a submission id. */
export const handler = define.handlers<Data>({
  async GET({ deps, params, url }) {
    try {
      const { form } = await requireLiveForm(deps, params.id ?? "");
      const id = url.searchParams.get("submission_id");
      const reference = id && /^sub_[0-9a-z]{26}$/.test(id) ? id : null;
      return page({ form, reference }, { title: `Thank you · ${form.name}` });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return err.status === 404 ? notFoundPage() : errorPage(err.status, err.message);
    }
  },
});
