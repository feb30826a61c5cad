/**
 * Create a form in the current workspace.
 * @module
 */
import { adminAudit } from "@/routes/admin/_audit.ts";
import { definitionFromPost, describeProblems, editorProblems } from "@/lib/admin/forms.ts";
import { page } from "@/lib/ui/define.ts";
import { AppError } from "@/lib/errors.ts";
import { createForm } from "@/lib/forms/forms.ts";
import { PageHead } from "@/routes/admin/_layout.tsx";
import { allow, defineFor } from "@/routes/admin/_access.ts";
import { type EditorData, FormEditor, refusedEditor } from "./_editor.tsx";

const STARTER: EditorData["def"] = {
  name: "",
  fields: [
    { name: "name", label: "Name", type: "text", required: true, maxLength: 100 },
    { name: "email", label: "Email", type: "email", required: true },
    { name: "message", label: "Message", type: "textarea", maxLength: 5000 },
  ],
  honeypot: "_gotcha",
  accepting: true,
};

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.workspace({ GET: "admin", POST: "admin" });
const define = defineFor(access);

/** GET shows the editor with a starter field set; POST creates. */
export const handler = define.handlers<EditorData>({
  GET(ctx) {
    ctx.workspace;
    return page({ def: STARTER, hasSecret: false }, {
      title: "New form",
    });
  },
  async POST(ctx) {
    const ws = ctx.workspace;
    const { def, problems } = definitionFromPost(ctx.body, null, STARTER.fields ?? []);
    const refuse = (details: string[]) =>
      page(
        refusedEditor(def, false, describeProblems(details, def.fields ?? []), problems.length > 0),
        {
          status: 400,
          title: "New form",
        },
      );
    if (problems.length) return refuse(problems);
    // The builder checks this too; a post without JavaScript or by hand meets it here.
    const missing = editorProblems(def);
    if (missing.length) return refuse(missing);
    try {
      const form = await createForm(ctx.deps, ws.id, def);
      await adminAudit(ctx, ws.id, "form.created", { form: form.id, name: form.name });
      return ctx.redirect(`/admin/forms/${form.id}`, "form_created");
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 400) throw err;
      return refuse((err.extra.details as string[] | undefined) ?? [err.message]);
    }
  },
});

/** The new-form page. */
export default define.page<typeof handler>(function NewForm({ data, csrf }) {
  return (
    <>
      <PageHead title="New form" sub="Start from these fields or change them." />
      <FormEditor data={data} csrf={csrf} action="/admin/forms/new" submitLabel="Create form" />
    </>
  );
});
