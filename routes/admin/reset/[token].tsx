/**
 * A password reset link: choose a new password, once, within 30 minutes; every session of
 * the account ends, its sign-in lockout is lifted, and the person signs in with the new
 * password.
 * @module
 */
import { completePasswordReset, findReset, RESET_GONE } from "@/lib/admin/reset.ts";
import { sessionCookie } from "@/lib/admin/sessions.ts";
import { clientIp } from "@/lib/http/http.ts";
import { Csrf } from "@/routes/admin/_layout.tsx";
import { type PageContext } from "@/routes/admin/_page.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";
import {
  AccountName,
  type LinkData,
  linkHandlers,
  NewPasswordFields,
} from "@/routes/admin/_account.tsx";

async function current(ctx: PageContext): Promise<LinkData<{ email: string }>> {
  const found = await findReset(ctx.deps, ctx.params.token ?? "");
  return found ? { email: found.user.value.email } : { gone: true };
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.public();
const define = defineFor(access);

/** GET shows the form; POST sets the password. */
export const handler = linkHandlers<{ email: string }>({
  title: "Choose a new password",
  load: current,
  confirms: () => true,
  async act(ctx) {
    await completePasswordReset(ctx.deps, {
      token: ctx.params.token ?? "",
      password: ctx.body.get("new_password") ?? "",
      ip: clientIp(ctx.c, ctx.deps.config.trustProxy),
    });
    // Every session of the account ended with the reset, this browser's too.
    ctx.c.header("Set-Cookie", sessionCookie(ctx.deps.config, null));
    return ctx.redirect("/admin/login", "password_reset");
  },
});

/** The new-password form, or why the link does not work. */
export default define.page<typeof handler>(function ResetPassword({ data, csrf }) {
  if (data.gone) {
    return (
      <section class="login">
        <h1>Reset link not valid</h1>
        <p class="notice error" role="alert">{RESET_GONE}</p>
        <p>
          <a href="/admin/reset">Ask for a new link</a>
        </p>
      </section>
    );
  }
  return (
    <section class="login">
      <h1>Choose a new password</h1>
      <p>For the account {data.email}.</p>
      {data.error && <p class="notice error" role="alert">{data.error}</p>}
      <form method="post">
        <Csrf token={csrf} />
        <AccountName email={data.email} />
        <NewPasswordFields />
        <p>
          <button type="submit">Set new password</button>
        </p>
      </form>
    </section>
  );
});
