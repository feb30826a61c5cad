/**
 * Webhook endpoints of the current workspace (admins): list (both modes, each marked; a
 * destination's URL masked, an endpoint disabled by its answers in a banner with the reason),
 * create (live, in a format; a standard endpoint's `whsec_` secret is shown once, through the
 * same one-time reveal as API keys), enable/disable, rotate, delete, each audited. A refused create shows the form again
 * as it was filled in. A suspended workspace may still disable or delete (that only takes
 * access away).
 * @module
 */
import { page } from "@/lib/ui/define.ts";
import { AppError } from "@/lib/errors.ts";
import { storeKeyReveal, takeKeyReveal } from "@/lib/admin/key_reveal.ts";
import { listFormSummaries } from "@/lib/admin/forms.ts";
import { EVENT_TYPES } from "@/lib/notify/events.ts";
import {
  createWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  updateWebhook,
} from "@/lib/notify/webhook_edits.ts";
import {
  type Format,
  FORMATS,
  listWebhooks,
  type WebhookView,
  webhookView,
} from "@/lib/notify/webhooks.ts";
import { assertNotSuspended } from "@/lib/workspaces/suspension.ts";
import type { Workspace } from "@/lib/schemas.ts";
import { auditBy } from "@/routes/admin/_audit.ts";
import { ActionButton, Csrf, PageHead, Time } from "@/routes/admin/_layout.tsx";
import { SecretReveal } from "@/routes/admin/_reveal.tsx";
import { field, idField, type PageContext, type SignedInContext } from "@/routes/admin/_page.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";

interface Data {
  workspace: Workspace;
  hooks: WebhookView[];
  forms: { id: string; name: string }[];
  revealed?: { url: string; secret: string };
  gone?: boolean;
  error?: string;
  /** What a refused create was filled in with, shown again. */
  draft?: Draft;
}

/** The create form's fields. */
interface Draft {
  url: string;
  format: string;
  events: string[];
  forms: string[];
}

const EMPTY_DRAFT: Draft = {
  url: "",
  format: "standard",
  events: ["submission.created"],
  forms: [],
};

/** Each format's name in the admin. */
const FORMAT_NAMES: Record<Format, string> = {
  standard: "Standard (signed JSON)",
  slack: "Slack (incoming webhook)",
  discord: "Discord (channel webhook)",
  teams: "Microsoft Teams (Workflows webhook)",
};

async function load(ctx: PageContext, workspace: Workspace, extra: Partial<Data> = {}) {
  const [hooks, forms] = await Promise.all([
    listWebhooks(ctx.deps, workspace.id),
    listFormSummaries(ctx.deps, workspace.id),
  ]);
  return {
    workspace,
    hooks: hooks.map(webhookView),
    forms: forms.map((f) => ({ id: f.form.id, name: f.form.name })),
    ...extra,
  };
}

/** Stores a secret for one showing and redirects to it (post/redirect/get). */
async function reveal(ctx: SignedInContext, workspace: Workspace, url: string, secret: string) {
  const token = await storeKeyReveal(ctx.deps, {
    session_user: ctx.state.user.id,
    workspace_id: workspace.id,
    name: url,
    key: secret,
  });
  return ctx.redirect(`/admin/webhooks?secret=${token}`);
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.workspace({ GET: "admin", POST: "admin" });
const define = defineFor(access);

/** GET lists; POST creates or changes one endpoint (`action`). */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const workspace = ctx.workspace;
    const token = ctx.url.searchParams.get("secret");
    if (!token) return page(await load(ctx, workspace), { title: "Webhooks" });
    const shown = await takeKeyReveal(ctx.deps, token, ctx.state.user.id, workspace.id);
    const extra = shown ? { revealed: { url: shown.name, secret: shown.key } } : { gone: true };
    return page(await load(ctx, workspace, extra), { title: "Webhooks" });
  },
  async POST(ctx) {
    const workspace = ctx.workspace;
    const action = field(ctx.body, "action");
    const id = idField(ctx.body, "id", "Webhook not found.");
    const draft: Draft = {
      url: field(ctx.body, "url"),
      format: field(ctx.body, "format") || "standard",
      events: ctx.body.getAll("events"),
      forms: ctx.body.getAll("forms"),
    };
    try {
      // Disabling and deleting only take access away: allowed in a suspended workspace.
      if (action !== "disable" && action !== "delete") assertNotSuspended(workspace);
      if (action === "create") {
        if (!ctx.body.getAll("events").length) {
          throw new AppError(
            400,
            "bad_request",
            "The webhook was not saved: tick at least one event.",
          );
        }
        const created = await createWebhook(ctx.deps, workspace.id, draft, auditBy(ctx));
        // A destination has no secret, and its URL (its credential) is never shown again.
        if (!created.secret) return ctx.redirect("/admin/webhooks", "destination_created");
        return await reveal(ctx, workspace, created.url, created.secret);
      }
      if (action === "rotate") {
        const rotated = await rotateWebhookSecret(ctx.deps, workspace.id, id, auditBy(ctx));
        return await reveal(ctx, workspace, rotated.url, rotated.secret!);
      }
      if (action === "enable" || action === "disable") {
        await updateWebhook(
          ctx.deps,
          workspace.id,
          id,
          { enabled: action === "enable" },
          auditBy(ctx),
        );
        return ctx.redirect(
          "/admin/webhooks",
          action === "enable" ? "webhook_enabled" : "webhook_disabled",
        );
      }
      if (action === "delete") {
        await deleteWebhook(ctx.deps, workspace.id, id, auditBy(ctx));
        return ctx.redirect("/admin/webhooks", "webhook_deleted");
      }
      throw new AppError(400, "bad_request", "Unknown action.");
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500 || err.status === 403) throw err;
      const error = err.message.replace(/^Invalid webhook: /, "The webhook was not saved: ");
      const kept = action === "create" ? { draft } : {};
      return page(await load(ctx, workspace, { error, ...kept }), {
        title: "Webhooks",
        status: 400,
      });
    }
  },
});

function RowAction(
  { csrf, id, action, label, danger }: {
    csrf: string;
    id: string;
    action: string;
    label: string;
    danger?: boolean;
  },
) {
  return (
    <ActionButton
      csrf={csrf}
      to="/admin/webhooks"
      action={action}
      fields={{ id }}
      label={label}
      kind={`${danger ? "danger" : "secondary"} small`}
    />
  );
}

/** The webhooks page. */
export default define.page<typeof handler>(function Webhooks({ data, csrf }) {
  const { workspace, hooks, revealed, forms } = data;
  const formName = new Map(forms.map((f) => [f.id, f.name]));
  const draft = data.draft ?? EMPTY_DRAFT;
  return (
    <>
      <PageHead
        title="Webhooks"
        sub={`${workspace.name}: signed POSTs (Standard Webhooks) to your endpoints, retried for about a day.`}
      />
      {revealed && (
        <SecretReveal
          heading={`Signing secret for ${revealed.url}.`}
          id="new-secret"
          secret={revealed.secret}
        />
      )}
      {data.gone && (
        <p class="notice" role="status">
          A signing secret is shown only once. If you did not copy it, rotate it.
        </p>
      )}
      {data.error && <p class="notice error" role="alert">{data.error}</p>}
      {hooks.filter((w) => !w.enabled && w.disabled_reason).map((w) => (
        <p class="notice error" role="alert">
          <a href={`/admin/webhooks/${w.id}`}>{w.url}</a> was disabled: {w.disabled_reason}{" "}
          Fix it, then enable it again below.
        </p>
      ))}
      <details class="card" open={hooks.length === 0 || Boolean(data.error)}>
        <summary>Add an endpoint</summary>
        <form method="post" action="/admin/webhooks">
          <Csrf token={csrf} />
          <input type="hidden" name="action" value="create" />
          <label for="hook-format">Format</label>
          <select id="hook-format" name="format" aria-describedby="hook-format-help">
            {FORMATS.map((f) => (
              <option value={f} selected={draft.format === f}>{FORMAT_NAMES[f]}</option>
            ))}
          </select>
          <p class="help" id="hook-format-help">
            Slack, Discord and Teams get their own message for each submission. Their URL is their
            password: after you add it, only its host and last 4 characters are shown.
          </p>
          <label for="hook-url">Endpoint URL</label>
          <input
            id="hook-url"
            name="url"
            type="url"
            required
            maxLength={2000}
            placeholder="https://example.com/hooks/formwell"
            aria-describedby="hook-url-help"
            value={draft.url}
          />
          <p class="help" id="hook-url-help">
            https only, to a public address, on port 443, 8080, 8443 or an unprivileged port that is
            not a well-known internal service's (WEBHOOK_ALLOW_PRIVATE=1 lifts this). Endpoints
            added here get live submissions; a test API key adds endpoints that get test
            submissions.
          </p>
          <fieldset>
            <legend>Events</legend>
            {EVENT_TYPES.map((e) => (
              <label class="check">
                <input
                  type="checkbox"
                  name="events"
                  value={e}
                  checked={draft.events.includes(e)}
                />{" "}
                <code>{e}</code>
              </label>
            ))}
          </fieldset>
          {forms.length > 0 && (
            <fieldset>
              <legend>Forms (none ticked: every form)</legend>
              {forms.map((f) => (
                <label class="check">
                  <input
                    type="checkbox"
                    name="forms"
                    value={f.id}
                    checked={draft.forms.includes(f.id)}
                  />{" "}
                  {f.name}
                </label>
              ))}
            </fieldset>
          )}
          <div class="form-actions">
            <button type="submit">Add endpoint</button>
          </div>
        </form>
      </details>
      {hooks.length === 0
        ? (
          <div class="empty">
            <h2>No endpoints yet</h2>
            <p>Add one to get each submission as a signed JSON POST.</p>
          </div>
        )
        : (
          <div class="table-wrap">
            <table class="list stack">
              <thead>
                <tr>
                  <th>Endpoint</th>
                  <th>Mode</th>
                  <th>Events</th>
                  <th>Forms</th>
                  <th>State</th>
                  <th>
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {hooks.map((w) => (
                  <tr>
                    <td class="cell-url" data-label="Endpoint">
                      <a href={`/admin/webhooks/${w.id}`}>{w.url}</a>
                      <div class="muted">
                        added <Time iso={w.created_at} />
                      </div>
                    </td>
                    <td data-label="Mode">
                      <span class={`badge ${w.mode === "live" ? "completed" : "suspicious"}`}>
                        {w.mode}
                      </span>
                      {w.format !== "standard" && <span class="badge">{w.format}</span>}
                    </td>
                    <td data-label="Events">{w.events.join(", ")}</td>
                    <td data-label="Forms">
                      {w.forms.length
                        ? w.forms.map((id) => formName.get(id) ?? id).join(", ")
                        : "all"}
                    </td>
                    <td data-label="State">
                      {w.enabled
                        ? <span class="badge completed">enabled</span>
                        : <span class="badge spam">disabled</span>}
                      {w.disabled_reason && <div class="muted">{w.disabled_reason}</div>}
                      {w.enabled && w.failing_since && (
                        <div class="muted">
                          failing since <Time iso={w.failing_since} />
                        </div>
                      )}
                    </td>
                    <td>
                      <div class="row-actions">
                        <a class="button secondary small" href={`/admin/webhooks/${w.id}`}>
                          Deliveries
                        </a>
                        <RowAction
                          csrf={csrf}
                          id={w.id}
                          action={w.enabled ? "disable" : "enable"}
                          label={w.enabled ? "Disable" : "Enable"}
                        />
                        {w.format === "standard" && (
                          <RowAction csrf={csrf} id={w.id} action="rotate" label="Rotate secret" />
                        )}
                        <RowAction csrf={csrf} id={w.id} action="delete" label="Delete" danger />
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
    </>
  );
});
