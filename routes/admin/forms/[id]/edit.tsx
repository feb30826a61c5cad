/**
 * Edit a form. A change to what is valid bumps its schema version (lib/forms/versioning.ts;
 * clients holding the old one get 409 `schema_changed`); the page says so before saving.
 * @module
 */
import { adminAudit, auditBy } from "@/routes/admin/_audit.ts";
import { definitionFromPost, describeProblems, editorProblems } from "@/lib/admin/forms.ts";
import { page } from "@/lib/ui/define.ts";
import { AppError } from "@/lib/errors.ts";
import { raisesSchemaVersion, updateForm } from "@/lib/forms/forms.ts";
import type { Form } from "@/lib/schemas.ts";
import { FormTabs, PageHead } from "@/routes/admin/_layout.tsx";
import { allow, defineFor } from "@/routes/admin/_access.ts";
import { type EditorData, FormEditor, refusedEditor } from "@/routes/admin/forms/_editor.tsx";

interface Data extends EditorData {
  form: Form;
}

function editorDef(form: Form): EditorData["def"] {
  return {
    name: form.name,
    fields: form.fields,
    captcha: form.captcha ? { ...form.captcha, secret: undefined } : null,
    honeypot: form.honeypot,
    allowed_origins: form.allowed_origins,
    accepting: form.accepting,
    redirect: form.redirect,
    intro: form.intro,
    thank_you: form.thank_you,
    notifications: form.notifications ?? undefined,
    steps: form.steps,
    default_language: form.default_language,
    translations: form.translations,
  };
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.form({ GET: "admin", POST: "admin" });
const define = defineFor(access);

/** GET shows the editor; POST saves. */
export const handler = define.handlers<Data>({
  GET(ctx) {
    const form = ctx.form;
    const data: Data = { form, def: editorDef(form), hasSecret: Boolean(form.captcha?.secret) };
    return page(data, { title: `Edit ${form.name}` });
  },
  async POST(ctx) {
    const form = ctx.form;
    const { def, problems } = definitionFromPost(ctx.body, form, form.fields);
    const refuse = (details: string[]) => {
      const hasSecret = Boolean(form.captcha?.secret);
      const data: Data = {
        form,
        ...refusedEditor(
          def,
          hasSecret,
          describeProblems(details, def.fields ?? []),
          problems.length > 0,
        ),
      };
      return page(data, { status: 400, title: `Edit ${form.name}` });
    };
    if (problems.length) return refuse(problems);
    // The builder checks this too; a post without JavaScript or by hand meets it here.
    const missing = editorProblems(def);
    if (missing.length) return refuse(missing);
    // A save that raises the version is shown back with a warning until confirmed for it.
    const confirmed = ctx.body.get("confirm_version") === String(form.schema_version);
    if (!confirmed && raisesSchemaVersion(form, def)) {
      const hasSecret = Boolean(form.captcha?.secret);
      const shown = refusedEditor(def, hasSecret, [], false);
      const data: Data = {
        form,
        def: shown.def,
        hasSecret,
        confirm: {
          from: form.schema_version,
          retypeSecret: Boolean(ctx.body.get("captcha_secret")?.trim()),
        },
      };
      return page(data, { title: `Edit ${form.name}` });
    }
    try {
      const saved = await updateForm(ctx.deps, form.id, def, auditBy(ctx));
      await adminAudit(ctx, form.workspace_id, "form.changed", {
        form: form.id,
        schema_version: saved.schema_version,
      });
      return ctx.redirect(`/admin/forms/${form.id}`, "form_saved");
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 400) throw err;
      return refuse((err.extra.details as string[] | undefined) ?? [err.message]);
    }
  },
});

/** The edit page. */
export default define.page<typeof handler>(function EditForm({ data, csrf }) {
  const f = data.form;
  return (
    <>
      <PageHead
        title={f.name}
        sub={
          <>
            <span class="mono">{f.id}</span> · schema version {f.schema_version}
          </>
        }
      />
      <FormTabs id={f.id} current="/edit" />
      <p class="notice">
        Adding, removing or renaming a field, or changing its type, rules, options or whether it is
        required makes this schema version {f.schema_version + 1}: pages and clients that send{" "}
        <code>schema_version</code> {f.schema_version}{" "}
        then get 409 (hosted pages show the form again with the answers kept). Labels, help text,
        placeholders and order do not change it.
      </p>
      <FormEditor
        data={data}
        csrf={csrf}
        action={`/admin/forms/${f.id}/edit`}
        submitLabel="Save form"
      />
    </>
  );
});
