/**
 * A form's submissions: status filter, search, date range, live/test, pagination, bulk
 * delete (with a confirmation step), bulk "Mark as spam" / "Not spam" (each one exactly as
 * the submission page's, through setSubmissionStatus) and the CSV export of the same set.
 * Listing and deleting reuse the Server Data API's lib functions.
 * @module
 */
import { adminAudit, auditBy } from "@/routes/admin/_audit.ts";
import type { Mode } from "@/lib/kv/keys.ts";
import { page } from "@/lib/ui/define.ts";
import { safeAdminPath } from "@/routes/admin/_session.ts";
import { type Pagination, parseQuery } from "@/lib/http/pagination.ts";
import type { Form } from "@/lib/schemas.ts";
import { deleteSubmissions, MAX_DELETE_IDS } from "@/lib/submissions/delete.ts";
import {
  listSubmissions,
  type PublicSubmission,
  type SubmissionListQuery,
  submissionListQuerySchema,
} from "@/lib/submissions/query.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { setSubmissionStatus } from "@/lib/submissions/status.ts";
import { Csrf, FormTabs, PageHead, Time } from "@/routes/admin/_layout.tsx";
import { may, type PageContext } from "@/routes/admin/_page.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";
import { readIds } from "@/lib/submissions/browse.ts";
import { filterQuery, Filters, Pager, PastTheEnd, preview } from "./_list.tsx";
import SelectAll from "@/islands/SelectAll.tsx";
import { Island } from "@/lib/ui/island.tsx";
import { count, plural } from "@/components/count.ts";

interface Data {
  form: Form;
  mode: Mode;
  q: SubmissionListQuery;
  submissions: PublicSubmission[];
  pagination: Pagination;
  /** Ids on this page an admin has opened. */
  read: string[];
  /** Set on the confirmation step of a bulk delete. */
  confirm?: string[];
  /** The list's query string to return to after the delete (keeps the filters). */
  back?: string;
}

function modeOf(v: string | null | undefined): Mode {
  return v === "test" ? "test" : "live";
}

async function load(ctx: PageContext, form: Form, query: Record<string, string>): Promise<Data> {
  const mode = modeOf(query.mode);
  const clean = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== ""));
  const q = parseQuery(submissionListQuerySchema, clean);
  const list = await listSubmissions(ctx.deps, form, mode, q);
  const read = await readIds(ctx.deps, form.id, list.submissions.map((s) => s.id));
  return { form, mode, q, ...list, read: [...read] };
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.form({ GET: "viewer", POST: "admin" });
const define = defineFor(access);

/**
 * GET lists; POST `action` = confirm_delete (shows the confirmation) | delete |
 * mark_spam | mark_completed.
 */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const form = ctx.form;
    const data = await load(ctx, form, ctx.c.req.query());
    return page(data, { title: `${form.name} submissions` });
  },
  async POST(ctx) {
    const form = ctx.form;
    const ids = ctx.body.getAll("ids").map((s) => s.trim()).filter(Boolean);
    // `back` is the list's query string; anything else returns to the plain list.
    const list = `/admin/forms/${form.id}/submissions`;
    const query = ctx.body.get("back") ?? "";
    const back = query.startsWith("?") ? safeAdminPath(list + query, list) : list;
    if (!ids.length) return ctx.redirect(back, "none_selected");
    if (ids.length > MAX_DELETE_IDS) {
      throw errors.badRequest(`Select at most ${MAX_DELETE_IDS} submissions at a time.`);
    }
    const mode = modeOf(ctx.body.get("mode"));
    const action = ctx.body.get("action");
    if (action === "mark_spam" || action === "mark_completed") {
      const to = action === "mark_spam" ? "spam" : "completed";
      // One by one through the single-submission path: status, index, counters and the
      // learning job move exactly as on the submission page.
      const by = auditBy(ctx);
      for (const id of new Set(ids)) {
        try {
          await setSubmissionStatus(ctx.deps, form.id, id, to, by);
        } catch (err) {
          // A submission deleted meanwhile is skipped; anything else (suspension) stops.
          if (!(err instanceof AppError && err.status === 404)) throw err;
        }
      }
      return ctx.redirect(back, to === "spam" ? "marked_spam_many" : "marked_completed_many");
    }
    if (action === "delete") {
      const { deleted } = await deleteSubmissions(ctx.deps, form, mode, ids, { notify: true });
      await adminAudit(ctx, form.workspace_id, "submissions.deleted", {
        form: form.id,
        mode,
        count: deleted,
      });
      return ctx.redirect(back, "deleted");
    }
    const data = await load(ctx, form, { mode });
    const kept = back.slice(list.length);
    return page({ ...data, confirm: ids, back: kept }, { title: "Delete submissions?" });
  },
});

/** The submissions page. */
export default define.page<typeof handler>(function Submissions({ data, csrf, state }) {
  const { form, q, mode, pagination: pg } = data;
  // Viewers read: no export, no selection, no bulk actions.
  const manage = may(state, form.workspace_id);
  const base = `/admin/forms/${form.id}/submissions`;
  const here = filterQuery(mode, q, q.page);
  if (data.confirm) {
    return (
      <>
        <PageHead title="Delete submissions?" />
        <form method="post" action={base} class="card">
          <Csrf token={csrf} />
          <input type="hidden" name="action" value="delete" />
          <input type="hidden" name="mode" value={mode} />
          <input type="hidden" name="back" value={data.back ?? ""} />
          {data.confirm.map((id) => <input key={id} type="hidden" name="ids" value={id} />)}
          <p>
            This deletes {count(data.confirm.length, "submission")} of <strong>{form.name}</strong>
            {" "}
            and their files. It cannot be undone.
          </p>
          <p class="form-actions">
            <button type="submit" class="danger">
              Delete {count(data.confirm.length, "submission")}
            </button>{" "}
            <a class="button secondary" href={`${base}${data.back ?? ""}`}>Cancel</a>
          </p>
        </form>
      </>
    );
  }
  return (
    <>
      <PageHead title={form.name} sub={<span class="mono">{form.id}</span>}>
        {manage && (
          <>
            <a class="button secondary" href={`/admin/forms/${form.id}/export.csv${here}`} download>
              Export CSV
            </a>{" "}
            <a
              class="button secondary"
              href={`/admin/forms/${form.id}/export.json${here}`}
              download
            >
              Export JSON
            </a>
          </>
        )}
      </PageHead>
      <FormTabs id={form.id} current="/submissions" edit={manage} />
      <Filters base={base} mode={mode} q={q} />
      {q.search && (
        <p class="muted" role="status" id="search-count">
          {count(pg.total, "submission")} {plural(pg.total, "matches", "match")} “{q.search}”
        </p>
      )}
      {data.submissions.length === 0 && pg.total > 0
        ? <PastTheEnd base={base} mode={mode} q={q} pg={pg} />
        : data.submissions.length === 0
        ? (
          <div class="empty">
            {q.status || q.search || q.range !== "all"
              ? (
                <>
                  <h2>No submissions match these filters</h2>
                  <p>
                    <a href={`${base}${filterQuery(mode, {})}`}>Clear the filters</a>
                  </p>
                </>
              )
              : (
                <>
                  <h2>No {mode} submissions yet</h2>
                  <p>
                    Put the form on your site with an{" "}
                    <a href={`/admin/forms/${form.id}#embed`}>embed snippet</a>, or send one with
                    {" "}
                    the API. They appear here as they arrive.
                  </p>
                </>
              )}
          </div>
        )
        : (
          <form method="post" action={base}>
            <Csrf token={csrf} />
            <input type="hidden" name="mode" value={mode} />
            <input type="hidden" name="back" value={here} />
            <div class="table-wrap">
              <table class="list">
                <thead>
                  <tr>
                    {manage && (
                      <th>
                        <Island
                          name="SelectAll"
                          component={SelectAll}
                          props={{ label: "Select all on this page" }}
                        />
                      </th>
                    )}
                    <th class="num">#</th>
                    <th class="hide-sm">Received</th>
                    <th>Status</th>
                    <th>Values</th>
                  </tr>
                </thead>
                <tbody>
                  {data.submissions.map((s) => (
                    <tr class={data.read.includes(s.id) ? "" : "unread"}>
                      {manage && (
                        <td>
                          <input
                            type="checkbox"
                            name="ids"
                            value={s.id}
                            aria-label={`Select submission ${s.submission_number}`}
                          />
                        </td>
                      )}
                      <td class="num">
                        <a href={`${base}/${s.id}${filterQuery(mode, { status: q.status })}`}>
                          {s.submission_number}
                        </a>
                        {!data.read.includes(s.id) && <span class="badge">new</span>}
                      </td>
                      <td class="hide-sm">
                        <Time iso={s.created_at} />
                      </td>
                      <td>
                        <span class={`badge ${s.status}`}>{s.status}</span>
                      </td>
                      <td class="cell-preview">
                        {preview(form, s)}
                        {/* The Received column is hidden on phones: the time goes here. */}
                        <div class="muted show-sm">
                          <Time iso={s.created_at} />
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div class="table-foot">
              {manage && (
                <div class="bulk-actions">
                  <button type="submit" name="action" value="confirm_delete" class="danger small">
                    Delete selected
                  </button>{" "}
                  <button type="submit" name="action" value="mark_spam" class="warning small">
                    Mark as spam
                  </button>{" "}
                  <button
                    type="submit"
                    name="action"
                    value="mark_completed"
                    class="secondary small"
                  >
                    Not spam
                  </button>
                </div>
              )}
              <Pager base={base} mode={mode} q={q} pg={pg} />
            </div>
          </form>
        )}
    </>
  );
});
