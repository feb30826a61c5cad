/**
 * Asking for a password reset: the same answer whether or not the email has an account.
 * @module
 */
import { page } from "@/lib/ui/define.ts";
import { clientIp } from "@/lib/http/http.ts";
import { requestPasswordReset, RESET_REQUESTED } from "@/lib/admin/reset.ts";
import { Csrf } from "./_layout.tsx";
import { define, field } from "./_page.ts";
import { spendSignInBudget, TOO_MANY } from "./_account.tsx";

/** Reachable without a session. */
export const isPublic = true;

interface Data {
  /** Shown after a request (the fixed answer). */
  sent: boolean;
  error?: string;
}

const TITLE = "Reset your password";

/** GET shows the form (or the answer, after a request); POST mails a link if it can. */
export const handler = define.handlers<Data>({
  GET(ctx) {
    return page({ sent: ctx.url.searchParams.get("sent") === "1" }, { title: TITLE });
  },
  async POST(ctx) {
    // Asking spends the sign-in budget too: the form cannot be used to flood a mailbox.
    if (!(await spendSignInBudget(ctx.deps, clientIp(ctx.c, ctx.deps.config.trustProxy)))) {
      return page({ sent: false, error: TOO_MANY }, { title: TITLE, status: 429 });
    }
    const email = field(ctx.body, "email");
    if (email) await requestPasswordReset(ctx.deps, email);
    return ctx.redirect("/admin/reset?sent=1");
  },
});

/** The reset request form, or the answer to one. */
export default define.page<typeof handler>(function ResetRequest({ data, csrf }) {
  return (
    <section class="login">
      <h1>Reset your password</h1>
      {data.sent
        ? (
          <>
            <p class="notice ok" role="status">{RESET_REQUESTED}</p>
            <p>
              <a href="/admin/login">Back to sign-in</a>
            </p>
          </>
        )
        : (
          <>
            {data.error && <p class="notice error" role="alert">{data.error}</p>}
            <p>Enter the email of your account. We mail you a link to choose a new password.</p>
            <form method="post" action="/admin/reset">
              <Csrf token={csrf} />
              <label for="email">Email</label>
              <input id="email" name="email" type="email" autocomplete="username" required />
              <p>
                <button type="submit">Send reset link</button>
              </p>
            </form>
            <p>
              <a href="/admin/login">Back to sign-in</a>
            </p>
          </>
        )}
    </section>
  );
});
