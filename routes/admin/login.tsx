/**
 * Sign-in. Every attempt spends from the per-IP `login` rate limit before the password
 * is checked, so guessing is slow whatever the outcome; a success also gives the browser a
 * device cookie, which exempts it from the account's lockout (lib/admin/signin.ts).
 * @module
 */
import { AppError } from "@/lib/errors.ts";
import { page } from "@/lib/ui/define.ts";
import { clientIp } from "@/lib/http/http.ts";
import { enforceLimit, ipIdentity } from "@/lib/ratelimit/rate_limit.ts";
import { createSession, sessionCookie } from "@/lib/admin/sessions.ts";
import { failedSignInFields, signIn } from "@/lib/admin/signin.ts";
import { logger } from "@/lib/observe/log.ts";
import { deviceCookie, readDeviceCookie } from "@/lib/admin/devices.ts";
import { audit } from "@/lib/privacy/audit.ts";
import { field } from "./_page.ts";
import { allow, defineFor } from "./_access.ts";
import { safeAdminPath } from "./_session.ts";
import { PasswordField } from "./_account.tsx";

interface Data {
  email: string;
  next: string;
  error?: string;
}

/** Only our own admin paths are followed after sign-in (no open redirect, no CR/LF). */
function safeNext(next: string | null): string {
  return safeAdminPath(next, "/admin/forms");
}

/** A `warn` line per failed sign-in, for operators watching for guessing (never the password). */
function logFailure(
  secret: Uint8Array,
  email: string,
  ip: string | null,
  reason: "mismatch" | "locked" | "rate_limited",
): void {
  logger.warn("admin sign-in failed", failedSignInFields(secret, { email, ip, reason }));
}

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.public();
const define = defineFor(access);

/** GET shows the form (or skips it when signed in); POST signs in. */
export const handler = define.handlers<Data>({
  GET(ctx) {
    const next = safeNext(ctx.url.searchParams.get("next"));
    if (ctx.state) return ctx.c.redirect(next, 303);
    return page({ email: "", next }, { title: "Sign in" });
  },
  async POST(ctx) {
    const email = field(ctx.body, "email");
    const password = ctx.body.get("password") ?? "";
    const next = safeNext(ctx.body.get("next"));
    const ip = clientIp(ctx.c, ctx.deps.config.trustProxy);
    try {
      await enforceLimit(ctx.deps, {
        route: "login",
        identity: ipIdentity(ip),
        perMinute: ctx.deps.config.rateLimits.login,
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 429) throw err;
      logFailure(ctx.deps.secret, email, ip, "rate_limited");
      const error = "Too many sign-in attempts from your network. Wait a minute and try again.";
      return page({ email, next, error }, { status: 429, title: "Sign in" });
    }
    const device = readDeviceCookie(ctx.deps.config, ctx.c.req.header("cookie"));
    const outcome = await signIn(ctx.deps, { email, password, device });
    if (!("user" in outcome)) {
      const { error, status } = outcome;
      logFailure(ctx.deps.secret, email, ip, status === 429 ? "locked" : "mismatch");
      return page({ email, next, error }, { status, title: "Sign in" });
    }
    const { user } = outcome;
    for (const workspaceId of user.workspace_ids) {
      await audit(ctx.deps, { workspaceId, action: "sign_in", actor: `user:${user.email}`, ip });
    }
    // A fresh token on every sign-in: a token planted before sign-in is never promoted.
    const { token } = await createSession(ctx.deps, user.id, user.workspace_ids[0] ?? null);
    ctx.c.header("Set-Cookie", sessionCookie(ctx.deps.config, token));
    ctx.c.header("Set-Cookie", deviceCookie(ctx.deps.config, outcome.device), { append: true });
    return ctx.c.redirect(next, 303);
  },
});

/** The sign-in form. */
export default define.page<typeof handler>(function Login({ data }) {
  return (
    <section class="login">
      <h1>Sign in to Formwell</h1>
      {data.error && <p class="notice error" role="alert">{data.error}</p>}
      <form method="post" action="/admin/login">
        <input type="hidden" name="next" value={data.next} />
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value={data.email}
          autofocus
        />
        <PasswordField />
        <p>
          <button type="submit">Sign in</button>
        </p>
      </form>
      <p>
        <a href="/admin/reset">Forgot your password?</a>
      </p>
      <p class="muted">
        First start? The admin email and password were printed in the server log. Others join
        through an invitation from a workspace owner.
      </p>
    </section>
  );
});
