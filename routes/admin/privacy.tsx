/**
 * Privacy requests of the current workspace (admins and owners): erase a person's
 * submissions by email, with what notifications kept about them, after a preview of what
 * goes; follow the erase job; and download a person's submissions as JSON (audited as
 * `export.privacy`). Both modes, live and test.
 * @module
 */
import { errors } from "@/lib/errors.ts";
import { clientIp } from "@/lib/http/http.ts";
import type { Mode } from "@/lib/kv/keys.ts";
import { audit } from "@/lib/privacy/audit.ts";
import {
  eraseBodySchema,
  type PrivacyJob,
  requirePrivacyJob,
  startErase,
} from "@/lib/privacy/erase.ts";
import { type ErasePreview, erasePreview, exportByEmail } from "@/lib/privacy/export.ts";
import type { CopyCounts } from "@/lib/notify/copies.ts";
import { setDefaultRetention } from "@/lib/privacy/settings.ts";
import { page } from "@/lib/ui/define.ts";
import { writableWorkspace } from "@/lib/workspaces/suspension.ts";
import type { Workspace } from "@/lib/schemas.ts";
import { Csrf, PageHead, Time } from "./_layout.tsx";
import { field, type SignedInContext } from "./_page.ts";
import { allow, defineFor } from "./_access.ts";
import { count } from "@/components/count.ts";

const MODES: Mode[] = ["live", "test"];

interface Data {
  workspace: Workspace;
  email: string;
  error?: string;
  /** After "Preview erase": what erasing `email` would delete. */
  preview?: ErasePreview;
  /** With `?job=`: the erase job to follow. */
  job?: PrivacyJob;
}

function parseEmail(value: string): string | null {
  const parsed = eraseBodySchema.safeParse({ email: value });
  return parsed.success ? parsed.data.email : null;
}

function defaultDays(body: URLSearchParams): number | null {
  const raw = field(body, "default_retention_days");
  if (raw === "") return null;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 3650) {
    throw errors.badRequest("Keep submissions for 1 to 3650 days, or leave it empty for forever.");
  }
  return n;
}

function who(ctx: SignedInContext) {
  return {
    actor: `user:${ctx.state.user.email}`,
    ip: clientIp(ctx.c, ctx.deps.config.trustProxy),
  };
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.workspace({ GET: "admin", POST: "admin" });
const define = defineFor(access);

/** GET shows the forms (and `?job=`); POST `action` = preview | erase | export. */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const workspace = ctx.workspace;
    const jobId = ctx.url.searchParams.get("job");
    const job = jobId ? await requirePrivacyJob(ctx.deps, workspace.id, MODES, jobId) : undefined;
    return page({ workspace, email: "", job }, { title: "Privacy" });
  },
  async POST(ctx) {
    const workspace = ctx.workspace;
    const action = field(ctx.body, "action");
    if (action === "default_retention") {
      await writableWorkspace(ctx.deps, workspace.id);
      await setDefaultRetention(ctx.deps, workspace.id, defaultDays(ctx.body), who(ctx));
      return ctx.redirect("/admin/privacy", "privacy_saved");
    }
    const raw = field(ctx.body, "email");
    const email = parseEmail(raw);
    if (!email) {
      return page(
        { workspace, email: raw, error: "Enter an email address, like ana@example.com." },
        {
          status: 400,
          title: "Privacy",
        },
      );
    }
    if (action === "preview") {
      const preview = await erasePreview(ctx.deps, workspace.id, MODES, email);
      return page({ workspace, email, preview }, { title: "Privacy" });
    }
    // A suspended workspace is read-only: no erasure and no export.
    await writableWorkspace(ctx.deps, workspace.id);
    if (action === "erase") {
      const job = await startErase(ctx.deps, {
        workspaceId: workspace.id,
        modes: MODES,
        email,
        ...who(ctx),
      });
      return ctx.redirect(`/admin/privacy?job=${job.id}`, "erase_started");
    }
    if (action !== "export") throw errors.badRequest("Unknown action.");
    const [live, test] = await Promise.all(
      MODES.map((m) => exportByEmail(ctx.deps, workspace.id, m, email)),
    );
    const submissions = [...live.submissions, ...test.submissions];
    await audit(ctx.deps, {
      workspaceId: workspace.id,
      action: "export.privacy",
      ...who(ctx),
      details: {
        count: submissions.length,
        ...(live.drafts.length ? { drafts: live.drafts.length } : {}),
      },
    });
    const body = JSON.stringify(
      {
        email,
        submissions,
        drafts: live.drafts,
        resume_mails: live.resume_mails,
        truncated: live.truncated || test.truncated,
      },
      null,
      2,
    );
    return new Response(body, {
      headers: {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Disposition": `attachment; filename="privacy-export.json"`,
      },
    });
  },
});

function JobView({ job }: { job: PrivacyJob }) {
  const forms = Object.entries(job.forms);
  return (
    <section aria-labelledby="job-h">
      <h2 id="job-h">Erase job</h2>
      <p role="status" id="job-status">
        {job.status === "done"
          ? `Done: ${count(job.deleted, "submission")} deleted, ${
            count(job.copies ?? 0, "notification copy", "notification copies")
          } removed.`
          : `Running: ${job.deleted} deleted so far. Reload the page to follow it.`}
      </p>
      <p class="muted">
        Started <Time iso={job.created_at} />
        {job.finished_at && (
          <>
            , finished <Time iso={job.finished_at} />
          </>
        )}.
      </p>
      {forms.length > 0 && (
        <ul>
          {forms.map(([id, n]) => <li key={id}>{id}: {n} deleted</li>)}
        </ul>
      )}
      {job.status !== "done" && <a href={`/admin/privacy?job=${job.id}`}>Reload</a>}
    </section>
  );
}

/** What notifications kept about the person, line by line (only what there is). */
function CopyList({ copies }: { copies: CopyCounts }) {
  const lines = [
    count(copies.outbox_mails, "mail in the Outbox", "mails in the Outbox"),
    count(copies.email_log_entries, "email log entry", "email log entries"),
    count(copies.events, "stored webhook and email event"),
    count(copies.webhook_deliveries, "webhook delivery log entry", "webhook delivery log entries"),
  ].filter((l) => !l.startsWith("0 "));
  if (!lines.length) return <p>Notifications kept nothing else about them.</p>;
  return (
    <>
      <p>What notifications kept about them goes too (resending those deliveries stops working):</p>
      <ul id="preview-copies">
        {lines.map((l) => <li key={l}>{l}</li>)}
      </ul>
    </>
  );
}

function Preview(
  { email, preview, csrf }: { email: string; preview: NonNullable<Data["preview"]>; csrf: string },
) {
  const forms = Object.entries(preview.forms);
  return (
    <section aria-labelledby="preview-h">
      <h2 id="preview-h">Confirm erasure</h2>
      {preview.total === 0
        ? <p id="preview-total">No submissions hold {email}. Nothing would be deleted.</p>
        : (
          <>
            <p id="preview-total">
              Erasing {email} deletes {count(preview.total, "submission")}{" "}
              (live and test), with their files. This cannot be undone.
            </p>
            <ul>
              {forms.map(([id, f]) => <li key={id}>{f.name} ({id}): {f.count}</li>)}
            </ul>
            <CopyList copies={preview.copies} />
            <form method="post">
              <Csrf token={csrf} />
              <input type="hidden" name="email" value={email} />
              <button type="submit" name="action" value="erase" class="danger">
                Erase {count(preview.total, "submission")}
              </button>{" "}
              <a href="/admin/privacy">Cancel</a>
            </form>
          </>
        )}
    </section>
  );
}

/** The erase and export forms, the confirmation step and the job's progress. */
export default define.page<typeof handler>(function Privacy({ data, csrf }) {
  return (
    <>
      <PageHead
        title="Privacy"
        sub={`Find, export or erase one person's submissions in ${data.workspace.name} by their email address.`}
      />
      {data.error && <p class="notice error" role="alert">{data.error}</p>}
      {data.job && <JobView job={data.job} />}
      {data.preview
        ? <Preview email={data.email} preview={data.preview} csrf={csrf} />
        : (
          <form method="post" class="stack">
            <Csrf token={csrf} />
            <label for="privacy-email">Email address</label>
            <input
              id="privacy-email"
              name="email"
              type="email"
              required
              autocomplete="off"
              value={data.email}
            />
            <p class="muted">
              Matches email fields of every form in this workspace. Erasing asks you to confirm
              first.
            </p>
            <div>
              <button type="submit" name="action" value="preview" class="danger">
                Erase…
              </button>{" "}
              <button type="submit" name="action" value="export" class="secondary">
                Export JSON
              </button>
            </div>
          </form>
        )}
      <section aria-labelledby="default-h">
        <h2 id="default-h">Retention of new forms</h2>
        <form method="post" class="stack">
          <Csrf token={csrf} />
          <input type="hidden" name="action" value="default_retention" />
          <label for="default-days">Days new forms keep submissions (empty: forever)</label>
          <input
            id="default-days"
            name="default_retention_days"
            type="number"
            min={1}
            max={3650}
            value={data.workspace.default_retention_days ?? ""}
          />
          <p class="muted">Existing forms keep their own setting; change it on each form's page.</p>
          <div>
            <button type="submit" class="secondary">Save default</button>
          </div>
        </form>
      </section>
    </>
  );
});
