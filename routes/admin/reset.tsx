/**
 * Asking for a password reset: the same answer whether or not the email has an account,
 * saying where the link went (the email, or the server log and the Outbox when the server
 * sends no email).
 * @module
 */
import { page } from "@/lib/ui/define.ts";
import { clientIp } from "@/lib/http/http.ts";
import { accountMailGoesTo } from "@/lib/admin/mail.ts";
import { requestPasswordReset } from "@/lib/admin/reset.ts";
import { Csrf } from "./_layout.tsx";
import { field } from "./_page.ts";
import { allow, defineFor } from "./_access.ts";
import { spendSignInBudget, TOO_MANY } from "./_account.tsx";

interface Data {
  /** Shown after a request (the fixed answer). */
  sent: boolean;
  /** Where reset links go on this server. */
  goesTo: "email" | "outbox";
  error?: string;
}

const TITLE = "Reset your password";

/** Where the link goes, before asking. */
const BEFORE = {
  email: "Enter the email of your account. We email you a link to choose a new password.",
  outbox: "Enter the email of your account. This server sends no email (it has no SMTP_URL): " +
    "the link to choose a new password goes to the server log and to the Outbox of the " +
    "admin, not to your inbox.",
};

/** The one answer to every request, whether or not the account exists. */
const AFTER = {
  email: "If an account uses that email, we emailed it a link to choose a new password. It " +
    "works once, for 30 minutes.",
  outbox: "If an account uses that email, its link to choose a new password is in the server " +
    "log (a line starting “account mail not sent”) and in the Outbox of the admin, which " +
    "instance owners see. Nothing was emailed: this server has no SMTP_URL. The link works " +
    "once, for 30 minutes.",
};

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.public();
const define = defineFor(access);

/** GET shows the form (or the answer, after a request); POST makes a link if it can. */
export const handler = define.handlers<Data>({
  GET(ctx) {
    const sent = ctx.url.searchParams.get("sent") === "1";
    return page({ sent, goesTo: accountMailGoesTo(ctx.deps.config) }, { title: TITLE });
  },
  async POST(ctx) {
    const goesTo = accountMailGoesTo(ctx.deps.config);
    // Asking spends the sign-in budget too: the form cannot be used to flood a mailbox.
    if (!(await spendSignInBudget(ctx.deps, clientIp(ctx.c, ctx.deps.config.trustProxy)))) {
      return page({ sent: false, goesTo, error: TOO_MANY }, { title: TITLE, status: 429 });
    }
    const email = field(ctx.body, "email");
    if (email) await requestPasswordReset(ctx.deps, email);
    return ctx.redirect("/admin/reset?sent=1");
  },
});

/** The reset request form, or the answer to one. */
export default define.page<typeof handler>(function ResetRequest({ data, csrf }) {
  const noMail = data.goesTo === "outbox";
  return (
    <section class="login">
      <h1>Reset your password</h1>
      {data.sent
        ? (
          <>
            <p class="notice ok" role="status">{AFTER[data.goesTo]}</p>
            {noMail && <CliHint />}
            <p>
              <a href="/admin/login">Back to sign-in</a>
            </p>
          </>
        )
        : (
          <>
            {data.error && <p class="notice error" role="alert">{data.error}</p>}
            <p>{BEFORE[data.goesTo]}</p>
            <form method="post" action="/admin/reset">
              <Csrf token={csrf} />
              <label for="email">Email</label>
              <input id="email" name="email" type="email" autocomplete="username" required />
              <p>
                <button type="submit">{noMail ? "Make reset link" : "Send reset link"}</button>
              </p>
            </form>
            {noMail && <CliHint />}
            <p>
              <a href="/admin/login">Back to sign-in</a>
            </p>
          </>
        )}
    </section>
  );
});

/** How the server's operator makes a link without the admin. */
function CliHint() {
  return (
    <p class="muted">
      Whoever runs the server can also make a link with{" "}
      <code>deno task cli user reset-password --email you@example.com</code>.
    </p>
  );
}
