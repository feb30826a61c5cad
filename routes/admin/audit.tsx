/**
 * The audit log of the current workspace (admins and owners), read-only: newest first,
 * filtered by action, paginated; who, what, from which (truncated) address, when, and the
 * details in words.
 * @module
 */
import {
  AUDIT_ACTIONS,
  type AuditEvent,
  auditQuerySchema,
  listAudit,
} from "@/lib/privacy/audit.ts";
import { type Pagination, parseQuery } from "@/lib/http/pagination.ts";
import { page } from "@/lib/ui/define.ts";
import type { Workspace } from "@/lib/schemas.ts";
import { PageHead, Time } from "./_layout.tsx";
import { allow, defineFor } from "./_access.ts";
import { count } from "@/components/count.ts";

type Shown = Omit<AuditEvent, "expires_at">;

interface Data {
  workspace: Workspace;
  events: Shown[];
  pagination: Pagination;
  action: string;
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.workspace({ GET: "admin" });
const define = defineFor(access);

/** GET `?action=&page=`. */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const workspace = ctx.workspace;
    const query = Object.fromEntries(
      Object.entries(ctx.c.req.query()).filter(([, v]) => v !== ""),
    );
    const q = parseQuery(auditQuerySchema, query);
    const { events, pagination } = await listAudit(ctx.deps, workspace.id, q);
    return page({ workspace, events, pagination, action: q.action ?? "" }, {
      title: "Audit log",
    });
  },
});

const LABELS: Record<AuditEvent["action"], string> = {
  "sign_in": "Signed in",
  "key.created": "API key created",
  "key.revoked": "API key revoked",
  "form.created": "Form created",
  "form.changed": "Form changed",
  "form.deleted": "Form deleted",
  "form.retention_changed": "Form retention changed",
  "form.notifications_changed": "Form notifications changed",
  "submissions.deleted": "Submissions deleted",
  "submissions.imported": "Submissions imported",
  "export.csv": "CSV export",
  "export.json": "JSON export",
  "export.privacy": "Privacy export",
  "privacy.erasure": "Erasure by email",
  "workspace.plan_changed": "Plan changed",
  "workspace.retention_changed": "Default retention changed",
  "member.invited": "Member invited",
  "member.joined": "Member joined",
  "member.role_changed": "Member role changed",
  "member.removed": "Member removed",
  "invite.withdrawn": "Invitation withdrawn",
  "user.password_changed": "Password changed",
  "user.password_reset": "Password reset",
  "webhook.created": "Webhook created",
  "webhook.updated": "Webhook changed",
  "webhook.deleted": "Webhook deleted",
  "webhook.secret_rotated": "Webhook secret rotated",
  "webhook.test_sent": "Webhook test event sent",
  "submission.labelled": "Submission labelled",
  "mcp.tool_called": "MCP tool called",
  "draft.viewed": "Draft opened",
  "draft.deleted": "Draft deleted",
};

function list(v: unknown): string {
  return Array.isArray(v) ? v.join(", ") : "";
}

/** A `form.notifications_changed` event: what changed, addresses added and removed. */
function notificationsInWords(d: Record<string, unknown>): string {
  const parts = [`Notifications of form ${d.form ?? "?"}: ${list(d.changed)} changed`];
  if (list(d.emails_added)) parts.push(`added ${list(d.emails_added)}`);
  if (list(d.emails_removed)) parts.push(`removed ${list(d.emails_removed)}`);
  return `${parts.join("; ")}.`;
}

function days(v: unknown): string {
  return v === null || v === undefined ? "forever" : count(Number(v), "day");
}

/** The event's details as a sentence (unknown details as `key: value`). */
export function detailsInWords(ev: Pick<AuditEvent, "action" | "details">): string {
  const d = ev.details;
  const form = typeof d.form === "string" ? ` on form ${d.form}` : "";
  switch (ev.action) {
    case "form.retention_changed":
    case "workspace.retention_changed":
      return `Retention from ${days(d.from)} to ${days(d.to)}${form}.`;
    case "submissions.deleted":
      return `${d.count ?? "?"} submission(s) deleted${form}.`;
    case "submissions.imported":
      return `${d.imported ?? "?"} submission(s) imported from ${d.format ?? "CSV"}${form}.`;
    case "export.csv":
    case "export.json":
      return `Exported ${d.mode ?? ""} submissions${form}.`.replace("  ", " ");
    case "export.privacy":
      return `Exported ${d.count ?? 0} submission(s) of one person.`;
    case "privacy.erasure":
      return d.phase === "done"
        ? `Erase job ${d.job_id} finished: ${d.deleted ?? 0} deleted.`
        : `Erase job ${d.job_id} ${d.phase ?? "started"}.`;
    case "key.created":
      return `Key ${d.key ?? "?"} "${d.name ?? ""}" (${d.type ?? "live"}, ${
        Array.isArray(d.scopes) ? d.scopes.join(" + ") : "?"
      }).`;
    case "key.revoked":
      return `Key ${d.key ?? "?"} "${d.name ?? ""}".`;
    case "form.created":
      return `Form ${d.form ?? "?"} "${d.name ?? ""}".`;
    case "form.deleted":
      return `Form ${d.form ?? "?"} "${d.name ?? ""}" with ${d.count ?? 0} submission(s).`;
    case "form.changed":
      return d.schema_version !== undefined
        ? `Form ${d.form ?? "?"} saved (schema version ${d.schema_version}).`
        : `Form ${d.form ?? "?"}: IP ${d.store_ip ?? "?"}, user agent ${
          d.store_user_agent ? "kept" : "not kept"
        }.`;
    case "form.notifications_changed":
      return notificationsInWords(d);
    case "workspace.plan_changed":
      return `Plan from ${d.from ?? "?"} to ${d.to ?? "?"}.`;
    case "member.invited":
    case "member.joined":
      return `${d.email ?? "?"} as ${d.role ?? "?"}.`;
    case "member.role_changed":
      return `${d.email ?? "?"} from ${d.from ?? "?"} to ${d.to ?? "?"}.`;
    case "member.removed":
      return `${d.email ?? "?"} (was ${d.from ?? "?"}).`;
    case "mcp.tool_called":
      return `Tool ${d.tool ?? "?"} with key "${d.api_key ?? ""}" (${d.mode ?? "live"}): ${
        d.outcome ?? "?"
      }.`;
    case "submission.labelled":
      return `Submission ${d.submission ?? "?"}${form} from ${d.from ?? "?"} to ${d.to ?? "?"}.`;
    case "invite.withdrawn":
      return `Invitation of ${d.email ?? "?"} as ${d.role ?? "?"}${
        d.reason === "inviter_lost_role" ? ": its inviter may no longer grant that role" : ""
      }.`;
  }
  const rest = Object.entries(d).map(([k, v]) =>
    `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`
  );
  return rest.length ? rest.join(", ") : "";
}

function pageLink(action: string, n: number): string {
  const p = new URLSearchParams();
  if (action) p.set("action", action);
  p.set("page", String(n));
  return `/admin/audit?${p}`;
}

/** The filter and the events table. */
export default define.page<typeof handler>(function Audit({ data }) {
  const { events, pagination, action } = data;
  return (
    <>
      <PageHead
        title="Audit log"
        sub={`What people and API keys did in ${data.workspace.name}; kept 400 days, read-only.`}
      />
      <form method="get" class="inline">
        <label for="audit-action">Action</label>{" "}
        <select id="audit-action" name="action">
          <option value="" selected={action === ""}>All actions</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a} selected={a === action}>{LABELS[a]}</option>
          ))}
        </select>{" "}
        <button type="submit" class="secondary small">Filter</button>
      </form>
      {events.length === 0
        ? <p>No events{action ? ` of this action` : ""} yet.</p>
        : (
          <div class="table-wrap" role="region" aria-label="Audit events" tabIndex={0}>
            <table class="stack">
              <caption class="visually-hidden">Audit events, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                  <th scope="col">From</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {events.map((ev) => (
                  <tr key={ev.id} data-action={ev.action}>
                    <td data-label="When">
                      <Time iso={ev.at} />
                    </td>
                    <td data-label="Who">{ev.actor}</td>
                    <td data-label="What">{LABELS[ev.action] ?? ev.action}</td>
                    <td data-label="From">{ev.ip ?? "unknown"}</td>
                    <td data-label="Details">{detailsInWords(ev)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      <nav aria-label="Pages" class="pager">
        {pagination.page > 1 && <a href={pageLink(action, pagination.page - 1)}>Newer</a>}{" "}
        <span>Page {pagination.page} of {Math.max(1, pagination.total_pages)}</span>{" "}
        {pagination.has_more && <a href={pageLink(action, pagination.page + 1)}>Older</a>}
      </nav>
    </>
  );
});
