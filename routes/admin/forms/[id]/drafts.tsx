/**
 * A form's Drafts tab: visitors' saved progress not submitted (count, last and furthest
 * step, age). Everyone who may see submissions sees it; opening a draft's values and
 * deleting a draft (admins) are recorded in the audit log.
 * @module
 */
import { page } from "@/lib/ui/define.ts";
import { AppError } from "@/lib/errors.ts";
import { deleteDraft } from "@/lib/drafts/store.ts";
import { draftsEnabled } from "@/lib/drafts/settings.ts";
import { draftListItem, getDraft, listDrafts } from "@/lib/drafts/summary.ts";
import type { DraftListItem } from "@/lib/drafts/types.ts";
import { audit } from "@/lib/privacy/audit.ts";
import type { Form } from "@/lib/schemas.ts";
import { writableWorkspace } from "@/lib/workspaces/suspension.ts";
import { auditBy } from "@/routes/admin/_audit.ts";
import { ActionButton, FormTabs, PageHead, Time } from "@/routes/admin/_layout.tsx";
import { field, may } from "@/routes/admin/_page.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";

interface Data {
  form: Form;
  drafts: DraftListItem[];
  total: number;
  opened: DraftListItem | null;
}

/** Drafts shown at most (the newest). */
const SHOWN = 100;

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.form({ GET: "viewer", POST: "admin" });
const define = defineFor(access);

/** GET lists (`?open=<id>` shows one draft's values, audited); POST deletes one (admins). */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const form = ctx.form;
    const list = await listDrafts(ctx.deps, form, "live", { page: 1, limit: SHOWN });
    const openId = ctx.url.searchParams.get("open");
    const d = openId ? await getDraft(ctx.deps, form, openId) : null;
    if (openId && !d) throw new AppError(404, "not_found", "Draft not found.");
    if (d) {
      await audit(ctx.deps, {
        workspaceId: form.workspace_id,
        action: "draft.viewed",
        ...auditBy(ctx),
        details: { form: form.id, draft: d.id },
      });
    }
    return page({
      form,
      drafts: list.drafts,
      total: list.pagination.total,
      opened: d ? draftListItem(d) : null,
    }, { title: `${form.name}: drafts` });
  },
  async POST(ctx) {
    const form = ctx.form;
    await writableWorkspace(ctx.deps, form.workspace_id);
    if (field(ctx.body, "action") !== "delete") {
      throw new AppError(400, "bad_request", "Unknown action.");
    }
    const id = field(ctx.body, "id");
    if (!(await getDraft(ctx.deps, form, id)) || !(await deleteDraft(ctx.deps, form.id, id))) {
      throw new AppError(404, "not_found", "Draft not found.");
    }
    await audit(ctx.deps, {
      workspaceId: form.workspace_id,
      action: "draft.deleted",
      ...auditBy(ctx),
      details: { form: form.id, draft: id },
    });
    return ctx.redirect(`/admin/forms/${form.id}/drafts`, "draft_deleted");
  },
});

function age(created: string): string {
  const days = Math.floor((Date.now() - Date.parse(created)) / 86_400_000);
  return days < 1 ? "today" : days === 1 ? "1 day" : `${days} days`;
}

/** The Drafts tab. */
export default define.page<typeof handler>(function Drafts({ data, csrf, state }) {
  const { form, drafts, total, opened } = data;
  const manage = may(state, form.workspace_id);
  const base = `/admin/forms/${form.id}/drafts`;
  return (
    <>
      <PageHead
        title={form.name}
        sub={draftsEnabled(form)
          ? `${total} ${total === 1 ? "draft" : "drafts"} not submitted (kept ${
            form.drafts!.ttl_days
          } days).`
          : "Drafts are off for this form: visitors' progress is not saved."}
      />
      <FormTabs id={form.id} current="/drafts" edit={manage} />
      {opened && (
        <section aria-label="Draft values">
          <h2>Draft {opened.id}</h2>
          <dl>
            {Object.entries(opened.data).map(([k, v]) => (
              <>
                <dt key={`${k}-t`}>{k}</dt>
                <dd key={`${k}-d`}>{Array.isArray(v) ? v.join(", ") : String(v)}</dd>
              </>
            ))}
          </dl>
        </section>
      )}
      <div class="table-wrap">
        <table class="list" aria-label="Drafts">
          <thead>
            <tr>
              <th>Draft</th>
              <th>Last step</th>
              <th>Furthest step</th>
              <th>Age</th>
              <th>Last saved</th>
              <th>
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {drafts.map((d) => (
              <tr key={d.id}>
                <td>
                  <a href={`${base}?open=${d.id}`}>{d.id}</a>
                </td>
                <td>{d.step ?? "—"}</td>
                <td>{d.furthest_step ?? "—"}</td>
                <td>{age(d.created_at)}</td>
                <td>
                  <Time iso={d.updated_at} />
                </td>
                <td>
                  {manage && (
                    <ActionButton
                      csrf={csrf}
                      action="delete"
                      fields={{ id: d.id }}
                      label="Delete"
                      to={base}
                      ariaLabel={`Delete draft ${d.id}`}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
});
