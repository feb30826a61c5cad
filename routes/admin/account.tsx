/**
 * The signed-in user's account: their workspaces and roles, and a password change (which
 * signs out their other sessions and gives this browser a fresh one).
 * @module
 */
import { AppError } from "@/lib/errors.ts";
import { page } from "@/lib/ui/define.ts";
import { clientIp } from "@/lib/http/http.ts";
import { roleIn } from "@/lib/admin/members.ts";
import { createSession, deleteSession, sessionCookie } from "@/lib/admin/sessions.ts";
import { changePassword } from "@/lib/admin/users.ts";
import { Csrf, PageHead } from "./_layout.tsx";
import { auditBy } from "./_audit.ts";
import { allow, defineFor } from "./_access.ts";
import {
  AccountName,
  confirmProblem,
  NewPasswordFields,
  spendSignInBudget,
  TOO_MANY,
} from "./_account.tsx";

interface Data {
  error?: string;
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.signedIn();
const define = defineFor(access);

/** GET shows the account; POST changes the password. */
export const handler = define.handlers<Data>({
  GET() {
    return page({}, { title: "Your account" });
  },
  async POST(ctx) {
    const state = ctx.state;
    const current = ctx.body.get("current_password") ?? "";
    const next = ctx.body.get("new_password") ?? "";
    let error: string | undefined;
    // Guessing the current password through this form is as slow as through sign-in.
    if (!(await spendSignInBudget(ctx.deps, clientIp(ctx.c, ctx.deps.config.trustProxy)))) {
      return page({ error: TOO_MANY }, { status: 429, title: "Your account" });
    }
    error = confirmProblem(ctx.body) ?? undefined;
    if (!error) {
      try {
        await changePassword(ctx.deps, state.user.id, { current, next }, auditBy(ctx));
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        error = err.message;
      }
    }
    if (error) return page({ error }, { status: 400, title: "Your account" });
    // Sessions from before the change are over, this one too: give this browser a new one.
    await deleteSession(ctx.deps, state.token);
    const { token } = await createSession(ctx.deps, state.user.id, state.workspace?.id ?? null);
    ctx.c.header("Set-Cookie", sessionCookie(ctx.deps.config, token));
    return ctx.redirect("/admin/account", "password_changed");
  },
});

/** The account page. */
export default define.page<typeof handler>(function Account({ data, csrf, state }) {
  if (!state) return null;
  const { user } = state;
  return (
    <>
      <PageHead title="Your account" sub={`Signed in as ${user.email}.`} />
      <h2>Workspaces</h2>
      {state.workspaces.length === 0
        ? <p class="muted">You are not a member of any workspace yet.</p>
        : (
          <ul>
            {state.workspaces.map((w) => (
              <li key={w.id}>
                {w.name}: {roleIn(user, w.id) ?? "none"}
                {user.owner ? " (instance owner)" : ""}
              </li>
            ))}
          </ul>
        )}
      <h2>Change password</h2>
      {data.error && <p class="notice error" role="alert">{data.error}</p>}
      <form method="post" class="card">
        <Csrf token={csrf} />
        <AccountName email={user.email} />
        <label for="current-password">Current password</label>
        <input
          id="current-password"
          name="current_password"
          type="password"
          autocomplete="current-password"
          required
        />
        <NewPasswordFields />
        <p>
          <button type="submit">Change password</button>
        </p>
        <p class="muted">Changing it signs you out everywhere else.</p>
      </form>
    </>
  );
});
