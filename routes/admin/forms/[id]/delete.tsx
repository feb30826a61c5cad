/**
 * Deleting a form with its submissions and files, after typing its name: GET asks, POST
 * deletes (lib/forms/manage.ts, through the same delete path as every other).
 * @module
 */
import { adminAudit } from "@/routes/admin/_audit.ts";
import { page } from "@/lib/ui/define.ts";
import { deleteForm } from "@/lib/forms/manage.ts";
import type { Form } from "@/lib/schemas.ts";
import { submissionCounts } from "@/lib/admin/forms.ts";
import { Csrf, FormTabs, PageHead } from "@/routes/admin/_layout.tsx";
import { field } from "@/routes/admin/_page.ts";
import type { FormContext } from "@/routes/admin/_page.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";
import { count } from "@/components/count.ts";

interface Data {
  form: Form;
  /** Live and test submissions that go with it. */
  submissions: number;
  error?: string;
}

async function load(ctx: FormContext, error?: string): Promise<Data> {
  const form = ctx.form;
  const [live, test] = await Promise.all([
    submissionCounts(ctx.deps, form.id, "live"),
    submissionCounts(ctx.deps, form.id, "test"),
  ]);
  return { form, submissions: live.all + test.all, error };
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.form({ GET: "admin", POST: "admin" });
const define = defineFor(access);

/** GET asks for the form's name; POST deletes when it matches. */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const data = await load(ctx);
    return page(data, { title: `Delete ${data.form.name}?` });
  },
  async POST(ctx) {
    const form = ctx.form;
    if (field(ctx.body, "confirm_name") !== form.name.trim()) {
      const data = await load(ctx, "The name does not match; nothing was deleted.");
      return page(data, { title: `Delete ${form.name}?`, status: 400 });
    }
    const count = await deleteForm(ctx.deps, form);
    await adminAudit(ctx, form.workspace_id, "form.deleted", {
      form: form.id,
      name: form.name,
      count,
    });
    return ctx.redirect("/admin/forms", "form_deleted");
  },
});

/** The typed confirmation. */
export default define.page<typeof handler>(function DeleteForm({ data, csrf }) {
  const { form, submissions } = data;
  return (
    <>
      <PageHead title={`Delete ${form.name}?`} sub={<span class="mono">{form.id}</span>} />
      <FormTabs id={form.id} current="/delete" />
      {data.error && <p class="notice error" role="alert">{data.error}</p>}
      <form method="post" class="card">
        <Csrf token={csrf} />
        <p>
          This deletes the form, its {count(submissions, "submission")}{" "}
          (live and test) and their files. Its hosted page and API answer "not found" from then on.
          It cannot be undone; to keep the data, archive the form instead.
        </p>
        <label for="confirm-name">Type the form's name, {form.name}, to confirm</label>
        <input id="confirm-name" name="confirm_name" type="text" required autocomplete="off" />
        <p class="form-actions">
          <button type="submit" class="danger">Delete form and submissions</button>{" "}
          <a class="button secondary" href={`/admin/forms/${form.id}`}>Cancel</a>
        </p>
      </form>
    </>
  );
});
