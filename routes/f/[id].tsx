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
import { FormPage, formPageProps } from "./_form_page.tsx";

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

/** The form and its island's props; `props` is null while the form is closed. */
interface Data {
  form: Form;
  props: HostedFormProps | null;
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
      const props = form.accepting
        ? formPageProps(deps, form, { values: prefill(form, ctx.url) })
        : null;
      return page({ form, props }, {
        title: form.name,
        headers: formPageHeaders(form, deps.config),
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
        heading={data.form.name}
        message="This form is not accepting responses right now."
      />
    );
  }
  return <FormPage form={data.form} props={data.props} />;
});
