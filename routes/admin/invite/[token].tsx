/**
 * An invitation link: shows which workspace and role it offers, then joins (a new account
 * chooses a password; an existing one gives its password) and signs in. Works once.
 * @module
 */
import { acceptInvite, findInvite, INVITE_GONE } from "@/lib/admin/invites.ts";
import { createSession, sessionCookie } from "@/lib/admin/sessions.ts";
import { deviceCookie, issueDevice } from "@/lib/admin/devices.ts";
import { clientIp } from "@/lib/http/http.ts";
import { findUserByEmail } from "@/lib/admin/users.ts";
import { getWorkspace } from "@/lib/workspaces/workspaces.ts";
import type { Role } from "@/lib/schemas.ts";
import { Csrf } from "@/routes/admin/_layout.tsx";
import { type PageContext } from "@/routes/admin/_page.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";
import {
  AccountName,
  type LinkData,
  linkHandlers,
  NewPasswordFields,
  PasswordField,
} from "@/routes/admin/_account.tsx";

/** What an invitation offers. */
interface Offer {
  email: string;
  role: Role;
  workspace: string;
  existing: boolean;
}

async function offer(ctx: PageContext): Promise<LinkData<Offer>> {
  const invite = await findInvite(ctx.deps, ctx.params.token ?? "");
  if (!invite) return { gone: true };
  const { email, role, workspace_id } = invite;
  const ws = await getWorkspace(ctx.deps, workspace_id);
  if (!ws) return { gone: true };
  const existing = (await findUserByEmail(ctx.deps, email)) !== null;
  return { email, role, workspace: ws.name, existing };
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.public();
const define = defineFor(access);

/** GET shows the invitation; POST accepts it (a new account sets its password). */
export const handler = linkHandlers<Offer>({
  title: "Join a workspace",
  load: offer,
  confirms: (data) => !data.existing,
  async act(ctx, data) {
    const password = ctx.body.get(data.existing ? "password" : "new_password") ?? "";
    const user = await acceptInvite(ctx.deps, {
      token: ctx.params.token ?? "",
      password,
      ip: clientIp(ctx.c, ctx.deps.config.trustProxy),
    });
    const entry = user.workspace_ids.at(-1) ?? null;
    const { token } = await createSession(ctx.deps, user.id, entry);
    ctx.c.header("Set-Cookie", sessionCookie(ctx.deps.config, token));
    // Joining signs in: this browser is now one the account signed in with.
    const device = deviceCookie(ctx.deps.config, issueDevice(ctx.deps.secret, user.id));
    ctx.c.header("Set-Cookie", device, { append: true });
    return ctx.redirect("/admin/forms", "joined");
  },
});

/** The invitation page. */
export default define.page<typeof handler>(function Invite({ data, csrf }) {
  if (data.gone) {
    return (
      <section class="login">
        <h1>Invitation not valid</h1>
        <p class="notice error" role="alert">{INVITE_GONE}</p>
        <p>
          <a href="/admin/login">Go to sign-in</a>
        </p>
      </section>
    );
  }
  return (
    <section class="login">
      <h1>Join {data.workspace}</h1>
      <p>
        You are invited to the workspace <strong>{data.workspace}</strong> on Formwell as{" "}
        <strong>{data.role}</strong>, with the email <strong>{data.email}</strong>.
      </p>
      {data.error && <p class="notice error" role="alert">{data.error}</p>}
      <form method="post">
        <Csrf token={csrf} />
        <AccountName email={data.email} />
        {data.existing
          ? (
            <>
              <p>You already have an account: enter its password to join.</p>
              <PasswordField />
            </>
          )
          : (
            <>
              <p>Choose a password for your new account.</p>
              <NewPasswordFields />
            </>
          )}
        <p>
          <button type="submit">Join {data.workspace}</button>
        </p>
      </form>
      {data.existing && (
        <p class="muted">
          Forgot it? <a href="/admin/reset">Reset your password</a>, then open this link again.
        </p>
      )}
    </section>
  );
});
