/**
 * Every workspace, with create, plan change and suspension (instance owners only: its
 * `access`).
 * @module
 */
import { adminAudit } from "@/routes/admin/_audit.ts";
import { errors } from "@/lib/errors.ts";
import { page } from "@/lib/ui/define.ts";
import { PLAN_NAMES, planLimits, type PlanName } from "@/lib/workspaces/plans.ts";
import type { Workspace } from "@/lib/schemas.ts";
import { createWorkspace, listWorkspaces, updateWorkspace } from "@/lib/workspaces/workspaces.ts";
import { setSessionWorkspace } from "@/lib/admin/sessions.ts";
import { listFormIds } from "@/lib/forms/forms.ts";
import { Csrf, PageHead, Time } from "./_layout.tsx";
import { field } from "./_page.ts";
import { allow, defineFor } from "./_access.ts";

interface Data {
  workspaces: Workspace[];
  error?: string;
  /** `?suspend=<id>`: the confirmation step, with how many forms go offline. */
  confirm?: { workspace: Workspace; forms: number };
}

function plan(value: string): PlanName {
  if (!(PLAN_NAMES as readonly string[]).includes(value)) {
    throw errors.badRequest(`Choose a plan: ${PLAN_NAMES.join(", ")}.`);
  }
  return value as PlanName;
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.instanceOwner("manage workspaces");
const define = defineFor(access);

/** GET lists; POST `action` = create | plan | suspend | unsuspend. */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const workspaces = await listWorkspaces(ctx.deps);
    const target = workspaces.find((w) => w.id === ctx.url.searchParams.get("suspend"));
    if (target && !target.suspended) {
      const forms = (await listFormIds(ctx.deps, target.id)).length;
      return page({ workspaces, confirm: { workspace: target, forms } }, {
        title: `Suspend ${target.name}?`,
      });
    }
    return page({ workspaces }, { title: "Workspaces" });
  },
  async POST(ctx) {
    const action = field(ctx.body, "action");
    const id = field(ctx.body, "workspace_id");
    if (action === "create") {
      const name = field(ctx.body, "name");
      if (!name) {
        const workspaces = await listWorkspaces(ctx.deps);
        const error = "Give the workspace a name.";
        return page({ workspaces, error }, {
          status: 400,
          title: "Workspaces",
        });
      }
      const ws = await createWorkspace(ctx.deps, { name, plan: plan(field(ctx.body, "plan")) });
      // Whoever creates a workspace means to work in it next.
      await setSessionWorkspace(ctx.deps, ctx.state.token, ws.id);
      return ctx.redirect("/admin/forms", "workspace_created");
    }
    if (action === "plan") {
      const before = (await listWorkspaces(ctx.deps)).find((w) => w.id === id);
      const to = plan(field(ctx.body, "plan"));
      await updateWorkspace(ctx.deps, id, { plan: to });
      if (before && before.plan !== to) {
        await adminAudit(ctx, id, "workspace.plan_changed", { from: before.plan, to });
      }
    } else if (action === "suspend" && field(ctx.body, "confirmed") !== "yes") {
      // A suspend button without JavaScript or by hand: ask first.
      return ctx.redirect(`/admin/workspaces?suspend=${encodeURIComponent(id)}`);
    } else if (action === "suspend" || action === "unsuspend") {
      await updateWorkspace(ctx.deps, id, { suspended: action === "suspend" });
    } else {
      throw errors.badRequest("Unknown action.");
    }
    return ctx.redirect("/admin/workspaces", "workspace_saved");
  },
});

/** The workspaces table and the create form. */
export default define.page<typeof handler>(function Workspaces({ data, csrf }) {
  if (data.confirm) return <ConfirmSuspend {...data.confirm} csrf={csrf} />;
  return (
    <>
      <PageHead
        title="Workspaces"
        sub="Each workspace has its own forms, keys and plan. Suspending one hides its forms (404) and stops its keys."
      />
      <p class="help">
        On this server a plan bills nothing: it sets a workspace's limits, listed under each plan
        below. Pick another plan in the table and press Change; it applies at once and is audited. A
        lower plan keeps the keys it already has working (the newest past its cap are marked "over
        limit"), and the Free plan has no API keys, so its Server Data API and key submits are
        refused until the plan is raised.
      </p>
      {data.error && <p class="notice error" role="alert">{data.error}</p>}
      <div class="table-wrap">
        <table class="stack">
          <thead>
            <tr>
              <th>Name</th>
              <th>Plan</th>
              <th>Status</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {data.workspaces.map((w) => (
              <tr>
                <td data-label="Name">
                  {w.name}
                  <div class="muted mono">{w.id}</div>
                </td>
                <td data-label="Plan">
                  <form method="post" class="inline">
                    <Csrf token={csrf} />
                    <input type="hidden" name="action" value="plan" />
                    <input type="hidden" name="workspace_id" value={w.id} />
                    <label class="visually-hidden" for={`plan-${w.id}`}>Plan of {w.name}</label>
                    <select id={`plan-${w.id}`} name="plan">
                      {PLAN_NAMES.map((p) => (
                        <option key={p} value={p} selected={p === w.plan}>{p}</option>
                      ))}
                    </select>
                    <button type="submit" class="secondary small">Change</button>
                  </form>
                  <div class="muted">{planLimits(w.plan)}</div>
                </td>
                <td data-label="Status">
                  {w.suspended
                    ? (
                      <form method="post" class="inline">
                        <Csrf token={csrf} />
                        <input type="hidden" name="workspace_id" value={w.id} />
                        <span class="badge spam">suspended</span>{" "}
                        <button
                          type="submit"
                          name="action"
                          value="unsuspend"
                          class="secondary small"
                        >
                          Unsuspend
                        </button>
                      </form>
                    )
                    : (
                      <>
                        <span class="badge completed">active</span>{" "}
                        <a
                          class="button danger small"
                          href={`/admin/workspaces?suspend=${encodeURIComponent(w.id)}`}
                        >
                          Suspend<span class="visually-hidden">{` ${w.name}`}</span>
                        </a>
                      </>
                    )}
                </td>
                <td data-label="Created">
                  <Time iso={w.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>New workspace</h2>
      <form method="post" class="card">
        <Csrf token={csrf} />
        <input type="hidden" name="action" value="create" />
        <label for="ws-name">Name</label>
        <input id="ws-name" name="name" type="text" required maxLength={200} />
        <label for="ws-plan">Plan</label>
        <select id="ws-plan" name="plan" aria-describedby="ws-plans">
          {PLAN_NAMES.map((p) => <option key={p} value={p} selected={p === "starter"}>{p}</option>)}
        </select>
        <ul id="ws-plans" class="muted">
          {PLAN_NAMES.map((p) => <li key={p}>{p}: {planLimits(p)}</li>)}
        </ul>
        <p>
          <button type="submit">Create workspace</button>
        </p>
      </form>
    </>
  );
});

/** The suspension's confirmation: says what goes offline. */
function ConfirmSuspend(
  { workspace, forms, csrf }: { workspace: Workspace; forms: number; csrf: string },
) {
  return (
    <>
      <PageHead title={`Suspend ${workspace.name}?`} />
      <form method="post" action="/admin/workspaces" class="card">
        <Csrf token={csrf} />
        <input type="hidden" name="action" value="suspend" />
        <input type="hidden" name="confirmed" value="yes" />
        <input type="hidden" name="workspace_id" value={workspace.id} />
        <p>
          Its {forms} form{forms === 1 ? " goes" : "s go"}{" "}
          offline: visitors and API clients get "not found", new submissions are refused, and its
          API keys stop working. Nothing is deleted; unsuspend it to bring everything back.
        </p>
        <p class="form-actions">
          <button type="submit" class="danger">Suspend workspace</button>{" "}
          <a class="button secondary" href="/admin/workspaces">Cancel</a>
        </p>
      </form>
    </>
  );
}
