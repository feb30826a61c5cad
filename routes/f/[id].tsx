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
import type { PostedValue } from "@/islands/hosted/types.ts";
import { errorPage, MessagePage, notFoundPage } from "./_message.tsx";
import { type HostedContext, htmlPage } from "./_page.ts";
import { renderFormPage } from "./_form_page.tsx";

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
