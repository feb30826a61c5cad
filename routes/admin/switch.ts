/**
 * The workspace switcher's target: points the session at another workspace the user
 * may see, then returns to where they were.
 * @module
 */
import { errors } from "@/lib/errors.ts";
import { setSessionWorkspace } from "@/lib/admin/sessions.ts";
import { canAccess, field } from "./_page.ts";
import { allow, defineFor } from "./_access.ts";

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.signedIn();
const define = defineFor(access);

/** POST `workspace_id` (and `next`). */
export const handler = define.handlers({
  async POST(ctx) {
    const state = ctx.state;
    const id = field(ctx.body, "workspace_id");
    if (!state.workspaces.some((w) => w.id === id) || !canAccess(state, id)) {
      throw errors.notFound("Workspace not found.");
    }
    await setSessionWorkspace(ctx.deps, state.token, id);
    // Pages of one form belong to its workspace, so land on the new workspace's forms.
    const next = field(ctx.body, "next");
    const to = /^\/admin\/(keys|workspaces|members|account)$/.test(next) ? next : "/admin/forms";
    return ctx.redirect(to, "switched");
  },
});
