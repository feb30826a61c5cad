/**
 * Instance owners only: every workspace, with create, plan change and suspension.
 * @module
 */
import { AppError, errors } from "@/lib/errors.ts";
import { page } from "@/lib/ui/define.ts";
import { PLAN_NAMES, type PlanName, planOf } from "@/lib/workspaces/plans.ts";
import type { Workspace } from "@/lib/schemas.ts";
import { createWorkspace, listWorkspaces, updateWorkspace } from "@/lib/workspaces/workspaces.ts";
import { Csrf, PageHead, Time } from "./_layout.tsx";
import { define, field, type PageContext } from "./_page.ts";

interface Data {
  workspaces: Workspace[];
  error?: string;
}

function requireOwner(ctx: PageContext): void {
  if (!ctx.state?.user.owner) {
    throw new AppError(403, "forbidden", "Only an instance owner can manage workspaces.");
  }
}

function plan(value: string): PlanName {
  if (!(PLAN_NAMES as readonly string[]).includes(value)) {
    throw errors.badRequest(`Choose a plan: ${PLAN_NAMES.join(", ")}.`);
  }
  return value as PlanName;
}

/** GET lists; POST `action` = create | plan | suspend | unsuspend. */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    requireOwner(ctx);
    const workspaces = await listWorkspaces(ctx.deps);
    return page({ workspaces }, { title: "Workspaces" });
  },
  async POST(ctx) {
    requireOwner(ctx);
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
      await createWorkspace(ctx.deps, { name, plan: plan(field(ctx.body, "plan")) });
      return ctx.redirect("/admin/workspaces", "workspace_created");
    }
    if (action === "plan") {
      await updateWorkspace(ctx.deps, id, { plan: plan(field(ctx.body, "plan")) });
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
  return (
    <>
      <PageHead
        title="Workspaces"
        sub="Each workspace has its own forms, keys and plan. Suspending one hides its forms (404) and stops its keys."
      />
      {data.error && <p class="notice error" role="alert">{data.error}</p>}
      <div class="table-wrap">
        <table>
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
                <td>
                  {w.name}
                  <div class="muted mono">{w.id}</div>
                </td>
                <td>
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
                  <div class="muted">
                    {planOf(w.plan).maxActiveKeys} keys ·{" "}
                    {planOf(w.plan).submissionsPerMonth?.toLocaleString("en") ?? "unlimited"}{" "}
                    submissions/month
                  </div>
                </td>
                <td>
                  <form method="post" class="inline">
                    <Csrf token={csrf} />
                    <input type="hidden" name="workspace_id" value={w.id} />
                    {w.suspended
                      ? <span class="badge spam">suspended</span>
                      : <span class="badge completed">active</span>}{" "}
                    <button
                      type="submit"
                      name="action"
                      value={w.suspended ? "unsuspend" : "suspend"}
                      class={w.suspended ? "secondary small" : "danger small"}
                    >
                      {w.suspended ? "Unsuspend" : "Suspend"}
                    </button>
                  </form>
                </td>
                <td>
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
        <select id="ws-plan" name="plan">
          {PLAN_NAMES.map((p) => <option key={p} value={p} selected={p === "starter"}>{p}</option>)}
        </select>
        <p>
          <button type="submit">Create workspace</button>
        </p>
      </form>
    </>
  );
});
