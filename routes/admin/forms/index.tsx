/**
 * The forms of the current workspace with their submission counts.
 * @module
 */
import { type FormSummary, listFormSummaries } from "@/lib/admin/forms.ts";
import { page } from "@/lib/ui/define.ts";
import type { Workspace } from "@/lib/schemas.ts";
import { PageHead, Time } from "@/routes/admin/_layout.tsx";
import { may } from "@/routes/admin/_page.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";

interface Data {
  workspace: Workspace | null;
  forms: FormSummary[];
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.signedIn();
const define = defineFor(access);

/** GET only. */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const workspace = ctx.state.workspace;
    const forms = workspace ? await listFormSummaries(ctx.deps, workspace.id) : [];
    return page({ workspace, forms }, { title: "Forms" });
  },
});

/** The forms table, or an empty state that says what to do. */
export default define.page<typeof handler>(function Forms({ data, state }) {
  if (!data.workspace) {
    return (
      <div class="empty">
        <h1>No workspace yet</h1>
        {state?.user.owner
          ? (
            <p>
              Create a workspace first. <a href="/admin/workspaces">Go to workspaces</a>
            </p>
          )
          : <p>Ask an instance owner to add you to a workspace.</p>}
      </div>
    );
  }
  const manage = may(state, data.workspace.id);
  return (
    <>
      <PageHead
        title="Forms"
        sub={
          <>
            {data.workspace.name} · <span class="badge">{data.workspace.plan}</span>
            {data.workspace.suspended && <span class="badge spam">suspended</span>}
          </>
        }
      >
        {manage && <a class="button" href="/admin/forms/new">New form</a>}
      </PageHead>
      {data.workspace.suspended && (
        <p class="notice error">
          This workspace is suspended: its forms answer 404 and its keys are refused.
        </p>
      )}
      {data.forms.length === 0
        ? (
          <div class="empty">
            <h2>No forms yet</h2>
            {manage
              ? (
                <>
                  <p>Create a form, then paste its embed snippet into your site.</p>
                  <a class="button" href="/admin/forms/new">Create your first form</a>
                </>
              )
              : <p>An admin or owner of this workspace creates them; they appear here.</p>}
          </div>
        )
        : (
          <>
            <FormsTable forms={data.forms.filter((f) => !f.form.archived_at)} />
            {data.forms.some((f) => f.form.archived_at) && (
              <details class="archived">
                <summary>Archived forms</summary>
                <FormsTable forms={data.forms.filter((f) => f.form.archived_at)} />
              </details>
            )}
          </>
        )}
    </>
  );
});

/** One table of forms with their counts. */
function FormsTable({ forms }: { forms: FormSummary[] }) {
  return (
    <div class="table-wrap">
      <table class="list stack">
        <thead>
          <tr>
            <th>Form</th>
            <th class="num">Submissions</th>
            <th class="num">Spam</th>
            <th>Status</th>
            <th>Updated</th>
          </tr>
        </thead>
        <tbody>
          {forms.map(({ form, total, spam }) => (
            <tr>
              <td data-label="Form">
                <a href={`/admin/forms/${form.id}`}>{form.name}</a>
                <div class="muted mono">{form.id} · v{form.schema_version}</div>
              </td>
              <td class="num" data-label="Submissions">
                <a href={`/admin/forms/${form.id}/submissions`}>
                  {total.toLocaleString("en")}
                </a>
              </td>
              <td class="num" data-label="Spam">{spam.toLocaleString("en")}</td>
              <td data-label="Status">
                {form.accepting
                  ? <span class="badge completed">accepting</span>
                  : <span class="badge">closed</span>}
              </td>
              <td data-label="Updated">
                <Time iso={form.updated_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
