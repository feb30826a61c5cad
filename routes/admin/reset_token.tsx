/**
 * A password reset link: choose a new password, once, within 30 minutes; every session of
 * the account ends and the person signs in with the new password.
 * @module
 */
import { AppError } from "@/lib/errors.ts";
import { page } from "@/lib/ui/define.ts";
import { clientIp } from "@/lib/http/http.ts";
import { completePasswordReset, findReset, RESET_GONE } from "@/lib/admin/reset.ts";
import { sessionCookie } from "@/lib/admin/sessions.ts";
import { Csrf } from "./_layout.tsx";
import { define, type PageContext } from "./_page.ts";
import { confirmProblem, NewPasswordFields, spendSignInBudget, TOO_MANY } from "./_account.tsx";

/** Reachable without a session. */
export const isPublic = true;

type Data = { gone: true } | { gone?: false; email: string; error?: string };

const TITLE = "Choose a new password";

async function current(ctx: PageContext): Promise<Data> {
  const found = await findReset(ctx.deps, ctx.params.token ?? "");
  return found ? { email: found.user.value.email } : { gone: true };
}

/** GET shows the form; POST sets the password. */
export const handler = define.handlers<Data>({
  async GET(ctx) {
    const data = await current(ctx);
    return page(data, { title: TITLE, status: data.gone ? 404 : 200 });
  },
  async POST(ctx) {
    const data = await current(ctx);
    if (data.gone) return page(data, { title: TITLE, status: 404 });
    if (!(await spendSignInBudget(ctx.deps, clientIp(ctx.c, ctx.deps.config.trustProxy)))) {
      return page({ ...data, error: TOO_MANY }, { title: TITLE, status: 429 });
    }
    const mismatch = confirmProblem(ctx.body);
    if (mismatch) return page({ ...data, error: mismatch }, { title: TITLE, status: 400 });
    try {
      await completePasswordReset(
        ctx.deps,
        ctx.params.token ?? "",
        ctx.body.get("new_password") ?? "",
      );
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      if (err.status === 404) return page({ gone: true }, { title: TITLE, status: 404 });
      return page({ ...data, error: err.message }, { title: TITLE, status: err.status });
    }
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
        <input
          type="email"
          name="username"
          autocomplete="username"
          value={data.email}
          hidden
          readOnly
        />
        <NewPasswordFields />
        <p>
          <button type="submit">Set new password</button>
        </p>
      </form>
    </section>
  );
});
