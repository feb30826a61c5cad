/**
 * A form's overview: counts, analytics with the daily chart island, the accepting
 * switch and the embed snippets.
 * @module
 */
import CopyButton from "@/islands/CopyButton.tsx";
import { page } from "@/lib/ui/define.ts";
import DailyChart from "@/islands/DailyChart.tsx";
import { submissionCounts } from "@/lib/admin/forms.ts";
import { type EmbedSnippets, embedSnippets } from "@/lib/admin/embed.ts";
import { completionLabel, type FormAnalytics, formAnalytics } from "@/lib/forms/analytics.ts";
import { errors } from "@/lib/errors.ts";
import { setAccepting } from "@/lib/forms/forms.ts";
import { duplicateForm, setArchived } from "@/lib/forms/manage.ts";
import type { StatusBucket } from "@/lib/kv/keys.ts";
import type { Form, Workspace } from "@/lib/schemas.ts";
import { Island } from "@/lib/ui/island.tsx";
import { count, plural } from "@/components/count.ts";
import { getWorkspace } from "@/lib/workspaces/workspaces.ts";
import { Csrf, FormTabs, PageHead, Time } from "@/routes/admin/_layout.tsx";
import { may } from "@/routes/admin/_page.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";
import { retentionSummary } from "@/lib/privacy/retention.ts";
import { PrivacySection, type RetentionView, savePrivacy } from "@/routes/admin/forms/_privacy.tsx";
import { StepReachTable } from "@/routes/admin/forms/_step_reach.tsx";

interface Data {
  form: Form;
  workspace: Workspace;
  counts: Record<StatusBucket, number>;
  analytics: FormAnalytics;
  embed: EmbedSnippets;
  retention: RetentionView;
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.form({ GET: "viewer", POST: "admin" });
const define = defineFor(access);

/** GET shows it; POST `accepting` = on | off, or `action` = duplicate | archive | unarchive. */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const form = ctx.form;
    const workspace = await getWorkspace(ctx.deps, form.workspace_id);
    if (!workspace) throw errors.formNotFound();
    const [counts, analytics, retention] = await Promise.all([
      submissionCounts(ctx.deps, form.id),
      formAnalytics(ctx.deps, form, workspace, "live"),
      retentionSummary(ctx.deps, form),
    ]);
    const embed = embedSnippets(form, ctx.deps.config.publicBaseUrl);
    return page({ form, workspace, counts, analytics, embed, retention }, {
      title: form.name,
    });
  },
  async POST(ctx) {
    const form = ctx.form;
    const action = ctx.body.get("action");
    if (action === "privacy") {
      await savePrivacy(ctx, form);
      return ctx.redirect(`/admin/forms/${form.id}`, "privacy_saved");
    }
    if (action === "duplicate") {
      const copy = await duplicateForm(ctx.deps, form);
      return ctx.redirect(`/admin/forms/${copy.id}`, "form_duplicated");
    }
    if (action === "archive" || action === "unarchive") {
      await setArchived(ctx.deps, form.id, action === "archive");
      return ctx.redirect(
        action === "archive" ? "/admin/forms" : `/admin/forms/${form.id}`,
        action === "archive" ? "form_archived" : "form_unarchived",
      );
    }
    const on = ctx.body.get("accepting") === "on";
    await setAccepting(ctx.deps, form.id, on);
    return ctx.redirect(`/admin/forms/${form.id}`, on ? "form_opened" : "form_closed");
  },
});

function Snippet(
  { id, title, text, help }: { id: string; title: string; text: string; help: string },
) {
  return (
    <div class="snippet">
      <div class="snippet-head">
        <h3 id={id}>{title}</h3>
        <Island name="CopyButton" component={CopyButton} props={{ text, label: "Copy" }} />
      </div>
      <p class="help">{help}</p>
      <pre class="code" aria-labelledby={id} tabIndex={0}>{text}</pre>
    </div>
  );
}

/** The hosted page's address with a query that prefills one of the form's fields. */
function prefillExample(form: Form, url: string): string {
  const hidden = form.fields.find((f) => f.type === "hidden");
  const field = hidden ?? form.fields.find((f) => f.type === "email") ?? form.fields[0];
  const value = hidden ? "newsletter" : field?.type === "email" ? "ada@example.com" : "…";
  return field ? `${url}?${encodeURIComponent(field.name)}=${value}` : url;
}

/** The overview page. */
export default define.page<typeof handler>(function FormOverview({ data, csrf, state }) {
  const { form, counts, analytics: a, embed } = data;
  const manage = may(state, form.workspace_id);
  return (
    <>
      <PageHead
        title={form.name}
        sub={
          <>
            <span class="mono">{form.id}</span> · schema version {form.schema_version} · updated
            {" "}
            <Time iso={form.updated_at} />
          </>
        }
      >
        {manage && (
          <form method="post" class="inline">
            <Csrf token={csrf} />
            {form.accepting
              ? (
                <button type="submit" name="accepting" value="off" class="secondary">
                  Stop accepting
                </button>
              )
              : (
                <button type="submit" name="accepting" value="on">
                  Accept submissions
                </button>
              )}
          </form>
        )}
      </PageHead>
      <FormTabs id={form.id} current="" edit={manage} />
      {form.archived_at && (
        <p class="notice">
          Archived: closed and listed apart. Unarchive it below to list it again.
        </p>
      )}
      {!form.accepting && (
        <p class="notice error">
          Closed: submissions are refused with 423 until you accept them again.
        </p>
      )}
      <div class="stats">
        <a class="stat" href={`/admin/forms/${form.id}/submissions`}>
          <span class="stat-n">{counts.all}</span> stored now
        </a>
        <a class="stat" href={`/admin/forms/${form.id}/submissions?status=completed`}>
          <span class="stat-n">{counts.completed}</span> completed
        </a>
        <a class="stat" href={`/admin/forms/${form.id}/submissions?status=suspicious`}>
          <span class="stat-n">{counts.suspicious}</span> suspicious
        </a>
        <a class="stat" href={`/admin/forms/${form.id}/submissions?status=spam`}>
          <span class="stat-n">{counts.spam}</span> spam
        </a>
      </div>
      <h2>Analytics</h2>
      <p class="muted" id="analytics-window">
        Live data, {a.from} to {a.to}. The {data.workspace.plan} plan keeps these daily counts for
        {" "}
        {count(a.retention_days, "day")}, then drops them; that never deletes a submission (how long
        submissions are kept is set under Privacy below).
      </p>
      <div class="stats">
        <div class="stat">
          <span class="stat-n">{a.views}</span> {plural(a.views, "view")}
        </div>
        <div class="stat">
          <span class="stat-n">{a.starts}</span> {plural(a.starts, "start")}
        </div>
        <div class="stat">
          <span class="stat-n">{a.submissions}</span> received
        </div>
        <div class="stat">
          <span class="stat-n">{completionLabel(a.completion_rate)}</span> completion
        </div>
      </div>
      <p class="help">
        Live submissions only. "Stored now" above counts what is kept today; "received" counts every
        submission that arrived in this window, from browsers and API alike, including ones deleted
        since. Views and starts are reported by the hosted page (or your calls to the events
        endpoint). Completion is received submissions per start, as the API's{" "}
        <code>completion_rate</code>; it shows "—" when there were no starts or more submissions
        than starts (posts from pages or servers that send no start event).
      </p>
      {a.views + a.starts + a.submissions === 0
        ? (
          <p class="empty">
            No activity yet. Views and starts come from the hosted page (or your own calls to the
            events endpoint); submissions are counted as they arrive.
          </p>
        )
        : <Island name="DailyChart" component={DailyChart} props={{ daily: a.daily }} />}
      {a.steps && (
        <StepReachTable
          steps={a.steps}
          titles={(form.steps ?? []).map((s) => s.title)}
        />
      )}
      <h2 id="embed">Put it on your site</h2>
      <div class="key-line">
        Hosted page: <a href={embed.hostedUrl}>{embed.hostedUrl}</a>{" "}
        <Island
          name="CopyButton"
          component={CopyButton}
          props={{ text: embed.hostedUrl, label: "Copy link" }}
        />
      </div>
      <p class="help">
        A link fills any field by its name, hidden ones included:{" "}
        <code class="wrap">{prefillExample(form, embed.hostedUrl)}</code>
      </p>
      <Snippet
        id="snippet-html"
        title="Plain HTML form"
        text={embed.html}
        help="Works without JavaScript: the browser posts the form and is redirected back."
      />
      {Object.entries(embed.htmlIn).map(([lang, text]) => (
        <Snippet
          key={lang}
          id={`snippet-html-${lang}`}
          title={`Plain HTML form (${lang})`}
          text={text}
          help={`The same form with its ${lang} texts, for a page in that language.`}
        />
      ))}
      <Snippet
        id="snippet-client"
        title="JavaScript (client library)"
        text={embed.client}
        help="Sends the form above in the background with /sdk/formwell.js: retries without duplicates, keeps it offline, shows errors beside the fields. It reads the form when the page loads, so later edits to the form do not break your page."
      />
      <Snippet
        id="snippet-fetch"
        title="JavaScript without the library (fetch, JSON)"
        text={embed.fetch}
        help="Reads the form's schema version when the page loads and sends it: a 409 then means the form changed while the page was open, and a reload fixes it."
      />
      <Snippet
        id="snippet-curl"
        title="From your server (API key)"
        text={embed.curl}
        help="Server-side only: a key skips the CAPTCHA. Never put a key in browser code."
      />
      <PrivacySection
        form={form}
        summary={data.retention}
        analyticsDays={a.retention_days}
        csrf={csrf}
        manage={manage}
      />
      {manage && <ManageForm form={form} csrf={csrf} />}
    </>
  );
});

/** Duplicate, archive and delete (admins and owners). */
function ManageForm({ form, csrf }: { form: Form; csrf: string }) {
  return (
    <>
      <h2>Manage this form</h2>
      <form method="post" class="inline manage">
        <Csrf token={csrf} />
        <button type="submit" name="action" value="duplicate" class="secondary">
          Duplicate
        </button>
        {form.archived_at
          ? (
            <button type="submit" name="action" value="unarchive" class="secondary">
              Unarchive
            </button>
          )
          : (
            <button type="submit" name="action" value="archive" class="secondary">
              Archive
            </button>
          )}
        <a class="button danger" href={`/admin/forms/${form.id}/delete`}>Delete form…</a>
      </form>
      <p class="help">
        Duplicate copies the fields and settings into a new, closed form (no submissions). Archive
        closes the form and lists it apart; nothing is deleted.
      </p>
    </>
  );
}
