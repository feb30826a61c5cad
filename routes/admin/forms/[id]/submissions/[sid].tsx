/**
 * One submission: values, files, metadata, request signals and the spam verdict, with
 * "mark as spam" / "not spam" (counters move in the same commit), newer/older links in the
 * list's order, mark as unread (opening marks it read) and delete after a confirmation.
 * @module
 */
import { Fragment } from "preact";
import { formatBytes } from "@/components/fields.ts";
import { adminAudit, auditBy } from "@/routes/admin/_audit.ts";
import { previewable } from "@/lib/uploads/preview.ts";
import { errors } from "@/lib/errors.ts";
import { page } from "@/lib/ui/define.ts";
import { type Field, type Form, isFileType, type Submission } from "@/lib/schemas.ts";
import { isPlausibleSubmissionId, metadataView } from "@/lib/submissions/query.ts";
import { readSubmission } from "@/lib/submissions/records.ts";
import { setSubmissionStatus } from "@/lib/submissions/status.ts";
import { deleteSubmissions } from "@/lib/submissions/delete.ts";
import { neighbours, setRead } from "@/lib/submissions/browse.ts";
import type { StatusBucket } from "@/lib/kv/keys.ts";
import { STATUSES } from "@/lib/schemas.ts";
import {
  contentPercent,
  highlightParts,
  reasonInWords,
  sentWith,
  tokenInWords,
} from "@/lib/admin/signals.ts";
import { Csrf, FormTabs, PageHead, Time } from "@/routes/admin/_layout.tsx";
import { may, type PageContext } from "@/routes/admin/_page.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";

interface Data {
  form: Form;
  sub: Submission;
  newer?: string;
  older?: string;
  /** The list's filter this page was opened from (`?status=`), kept in its links. */
  query: string;
  /** `?confirm=delete`: the delete confirmation. */
  confirmDelete: boolean;
}

function bucketOf(v: string | null): StatusBucket {
  return (STATUSES as readonly string[]).includes(v ?? "") ? v as StatusBucket : "all";
}

function listQuery(sub: Submission, bucket: StatusBucket): string {
  const p = new URLSearchParams();
  if (sub.mode === "test") p.set("mode", "test");
  if (bucket !== "all") p.set("status", bucket);
  const s = p.toString();
  return s ? `?${s}` : "";
}

async function loadSubmission(ctx: PageContext, form: Form): Promise<Submission> {
  const id = ctx.params.sid ?? "";
  const sub = isPlausibleSubmissionId(id) ? await readSubmission(ctx.deps.kv, form.id, id) : null;
  if (!sub || sub.form_id !== form.id) throw errors.notFound("Submission not found.");
  return sub;
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.form({ GET: "viewer", POST: "admin" }, {
  views: { "confirm=delete": "admin" },
});
const define = defineFor(access);

/** GET shows it (and marks it read); POST `status` = spam | completed, or `action` = unread | delete. */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const form = ctx.form;
    const sub = await loadSubmission(ctx, form);
    const bucket = bucketOf(ctx.url.searchParams.get("status"));
    const [near] = await Promise.all([
      neighbours(ctx.deps, form.id, sub.mode, bucket, sub.number),
      setRead(ctx.deps, form.id, sub.id, true),
    ]);
    const confirmDelete = ctx.url.searchParams.get("confirm") === "delete";
    return page({ form, sub, ...near, query: listQuery(sub, bucket), confirmDelete }, {
      title: confirmDelete ? `Delete submission ${sub.number}?` : `Submission ${sub.number}`,
    });
  },
  async POST(ctx) {
    const form = ctx.form;
    const sub = await loadSubmission(ctx, form);
    const list = `/admin/forms/${form.id}/submissions`;
    const query = listQuery(sub, bucketOf(ctx.body.get("list_status")));
    const action = ctx.body.get("action");
    if (action === "unread") {
      await setRead(ctx.deps, form.id, sub.id, false);
      return ctx.redirect(`${list}${query}`, "marked_unread");
    }
    if (action === "delete") {
      const bucket = bucketOf(ctx.body.get("list_status"));
      const near = await neighbours(ctx.deps, form.id, sub.mode, bucket, sub.number);
      const { deleted } = await deleteSubmissions(ctx.deps, form, sub.mode, [sub.id]);
      await adminAudit(ctx, form.workspace_id, "submissions.deleted", {
        form: form.id,
        mode: sub.mode,
        count: deleted,
      });
      await setRead(ctx.deps, form.id, sub.id, false);
      const next = near.older ?? near.newer;
      return ctx.redirect(next ? `${list}/${next}${query}` : `${list}${query}`, "deleted_one");
    }
    const to = ctx.body.get("status");
    if (to !== "spam" && to !== "completed") throw errors.badRequest("Unknown status.");
    await setSubmissionStatus(ctx.deps, form.id, sub.id, to, auditBy(ctx));
    return ctx.redirect(
      `/admin/forms/${form.id}/submissions/${sub.id}`,
      to === "spam" ? "marked_spam" : "marked_completed",
    );
  },
});

function FileLink({ form, sub, value }: { form: Form; sub: Submission; value: unknown }) {
  const refs = (Array.isArray(value) ? value : [value]) as {
    path?: string;
    originalFilename?: string;
    sizeBytes?: number;
    mimeType?: string;
  }[];
  return (
    <>
      {refs.filter((r) => r && typeof r.path === "string").map((r) => (
        <div>
          {previewable(r.mimeType, r.sizeBytes ?? Infinity) && (
            <img
              class="file-preview"
              src={`/admin/forms/${form.id}/file?sub=${sub.id}&path=${
                encodeURIComponent(r.path!)
              }&preview=1`}
              alt={`Preview of ${r.originalFilename || "the uploaded image"}`}
              loading="lazy"
            />
          )}
          <a
            href={`/admin/forms/${form.id}/file?sub=${sub.id}&path=${encodeURIComponent(r.path!)}`}
          >
            {r.originalFilename || r.path}
          </a>{" "}
          <span class="muted">
            {r.mimeType} {r.sizeBytes !== undefined && `· ${formatBytes(r.sizeBytes)}`}
          </span>
        </div>
      ))}
    </>
  );
}

/** Text with the words that drove the content verdict in `<mark>` (escaped by Preact). */
function Marked({ text, words }: { text: string; words: readonly string[] }) {
  return (
    <>
      {/* Plain parts in fragments: a bare string in an array is escaped twice (precompile). */}
      {highlightParts(text, words).map((p, i) =>
        p.mark ? <mark key={i}>{p.text}</mark> : <Fragment key={i}>{p.text}</Fragment>
      )}
    </>
  );
}

function Value({ field, value, words }: { field: Field; value: unknown; words: string[] }) {
  if (value === undefined || value === null || value === "") return <span class="muted">—</span>;
  if (Array.isArray(value)) return <Marked text={value.map(String).join(", ")} words={words} />;
  if (typeof value === "object") return <code>{JSON.stringify(value)}</code>;
  if (field.type === "textarea") {
    return (
      <div class="pre">
        <Marked text={String(value)} words={words} />
      </div>
    );
  }
  return <Marked text={String(value)} words={words} />;
}

/** The verdict in words: the content figure, the words behind it, each behavioural signal. */
function Verdict({ sub }: { sub: Submission }) {
  const spam = sub.spam;
  if (!spam) return <p class="muted">No spam signs recorded.</p>;
  const content = spam.content;
  const behaviour = spam.reasons.filter((r) => !r.startsWith("content_"));
  return (
    <dl class="values">
      <dt>Score</dt>
      <dd>{Math.round(spam.score)} of 100 (suspicious from 40, spam from 70)</dd>
      {content && (
        <>
          <dt>Content</dt>
          <dd>
            <strong>Content: {contentPercent(content.p)}% spam-like</strong>
            {content.tokens.length > 0 && (
              <>
                {" "}— {content.p >= 0.5 ? "mostly from" : "it reads as ordinary mail, from"}{" "}
                {content.tokens.map((t) => tokenInWords(t.token)).join(", ")}
                {content.tokens.some((t) => !t.token.includes(":")) &&
                  " (marked in the values)"}
              </>
            )}
          </dd>
        </>
      )}
      <dt>Behaviour</dt>
      <dd>
        {behaviour.length
          ? (
            <ul class="plain">
              {behaviour.map((r) => <li key={r}>{reasonInWords(r)}</li>)}
            </ul>
          )
          : "Nothing unusual in how it was sent"}
      </dd>
    </dl>
  );
}

/** The submission page. */
export default define.page<typeof handler>(function SubmissionPage({ data, csrf, state }) {
  const { form, sub, query } = data;
  const list = `/admin/forms/${form.id}/submissions`;
  const status = new URLSearchParams(query).get("status") ?? "";
  if (data.confirmDelete) {
    return (
      <>
        <PageHead title={`Delete submission #${sub.number}?`} />
        <form method="post" action={`${list}/${sub.id}${query}`} class="card">
          <Csrf token={csrf} />
          <input type="hidden" name="action" value="delete" />
          <input type="hidden" name="list_status" value={status} />
          <p>
            This deletes submission #{sub.number} of <strong>{form.name}</strong>{" "}
            and its files. It cannot be undone.
          </p>
          <p class="form-actions">
            <button type="submit" class="danger">Delete submission</button>{" "}
            <a class="button secondary" href={`${list}/${sub.id}${query}`}>Cancel</a>
          </p>
        </form>
      </>
    );
  }
  const manage = may(state, form.workspace_id);
  // As the API shows it: with the server's `scored_at` once the final verdict is in.
  const metadata = metadataView(sub);
  const known = new Set(form.fields.map((f) => f.name));
  const extra = Object.keys(sub.fields).filter((k) => !known.has(k));
  const sig = sub.signals ?? {};
  // Only a spam-leaning content verdict marks its words in the values.
  const words = sub.spam?.content && sub.spam.content.p >= 0.5
    ? sub.spam.content.tokens.map((t) => t.token)
    : [];
  return (
    <>
      <PageHead
        title={`Submission #${sub.number}`}
        sub={
          <>
            <span class="mono">{sub.id}</span> · {form.name}
          </>
        }
      >
        {manage && (
          <form method="post" class="inline">
            <Csrf token={csrf} />
            <input type="hidden" name="list_status" value={status} />
            <button type="submit" name="action" value="unread" class="secondary">
              Mark as unread
            </button>{" "}
            {sub.status === "spam"
              ? (
                <button type="submit" name="status" value="completed" class="secondary">
                  Not spam
                </button>
              )
              : (
                <button type="submit" name="status" value="spam" class="warning">
                  Mark as spam
                </button>
              )}{" "}
            <a
              class="button danger"
              href={`${list}/${sub.id}${query}${query ? "&" : "?"}confirm=delete`}
            >
              Delete
            </a>
          </form>
        )}
      </PageHead>
      <FormTabs id={form.id} current="/submissions" edit={manage} />
      <nav class="sub-nav" aria-label="Submissions">
        <a href={`${list}${query}`}>← All submissions</a>
        {data.newer
          ? <a href={`${list}/${data.newer}${query}`} rel="prev">Newer</a>
          : <span class="muted">Newer</span>}
        {data.older
          ? <a href={`${list}/${data.older}${query}`} rel="next">Older</a>
          : <span class="muted">Older</span>}
      </nav>
      <div class="grid2">
        <section>
          <h2>Values</h2>
          <dl class="values">
            {form.fields.map((f) => (
              <>
                <dt>{f.label || f.name}</dt>
                <dd>
                  {isFileType(f.type)
                    ? <FileLink form={form} sub={sub} value={sub.fields[f.name]} />
                    : <Value field={f} value={sub.fields[f.name]} words={words} />}
                </dd>
              </>
            ))}
            {extra.map((k) => (
              <>
                <dt>
                  {k} <span class="muted">(no longer a field)</span>
                </dt>
                <dd>
                  <code>{JSON.stringify(sub.fields[k])}</code>
                </dd>
              </>
            ))}
          </dl>
          <h2>Metadata</h2>
          {Object.keys(metadata).length
            ? <pre class="code wrap">{JSON.stringify(metadata, null, 2)}</pre>
            : <p class="muted">No metadata was sent.</p>}
        </section>
        <section>
          <h2>Status</h2>
          <p>
            <span class={`badge ${sub.status}`}>{sub.status}</span>
            {sub.spam?.manual && <span class="muted">set by an admin</span>}
          </p>
          <Verdict sub={sub} />
          <h2>Request</h2>
          <dl class="values">
            <dt>Received</dt>
            <dd>
              <Time iso={sub.created_at} />
            </dd>
            <dt>Data</dt>
            <dd>{sub.mode}</dd>
            <dt>Sent with</dt>
            <dd>{sentWith(sig)}</dd>
            <dt>Origin</dt>
            <dd>{sig.origin ?? <span class="muted">none</span>}</dd>
            <dt>IP</dt>
            <dd class="mono">{sig.ip ?? "unknown"}</dd>
            <dt>User agent</dt>
            <dd class="small">{sig.user_agent ?? <span class="muted">none</span>}</dd>
            {sig.fill_ms !== undefined && (
              <>
                <dt>Time to fill</dt>
                <dd>{(sig.fill_ms / 1000).toFixed(1)} s</dd>
              </>
            )}
          </dl>
        </section>
      </div>
    </>
  );
});
