/**
 * Shared by the account pages (account, invitation, password reset): the sign-in budget
 * that slows password guessing, the new-password inputs, and the one-time link pages' flow.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError } from "@/lib/errors.ts";
import { clientIp } from "@/lib/http/http.ts";
import { enforceLimit, ipIdentity } from "@/lib/ratelimit/rate_limit.ts";
import { type Handlers, page } from "@/lib/ui/define.ts";
import { define, type PageContext } from "./_page.ts";

/**
 * Spends one unit of the per-IP `login` limit (the sign-in form's), so every form that
 * checks or sets a password is as slow to abuse as sign-in; false when it is spent.
 */
export async function spendSignInBudget(deps: Deps, ip: string): Promise<boolean> {
  try {
    await enforceLimit(deps, {
      route: "login",
      identity: ipIdentity(ip),
      perMinute: deps.config.rateLimits.login,
    });
    return true;
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 429) throw err;
    return false;
  }
}

/** The message when {@linkcode spendSignInBudget} refuses. */
export const TOO_MANY = "Too many attempts from your network. Wait a minute and try again.";

/** The account's email as a hidden `username`: lets password managers tie a password to it. */
export function AccountName({ email }: { email: string }) {
  return (
    <input type="email" name="username" autocomplete="username" value={email} hidden readOnly />
  );
}

/** The account's password (`password`), as signing in asks for it. */
export function PasswordField() {
  return (
    <>
      <label for="password">Password</label>
      <input
        id="password"
        name="password"
        type="password"
        autocomplete="current-password"
        required
      />
    </>
  );
}

/** The new password and its confirmation (`new_password`, `confirm_password`). */
export function NewPasswordFields() {
  return (
    <>
      <label for="new-password">New password</label>
      <input
        id="new-password"
        name="new_password"
        type="password"
        autocomplete="new-password"
        minLength={8}
        required
        aria-describedby="new-password-help"
      />
      <p id="new-password-help" class="muted">At least 8 characters.</p>
      <label for="confirm-password">New password again</label>
      <input
        id="confirm-password"
        name="confirm_password"
        type="password"
        autocomplete="new-password"
        minLength={8}
        required
      />
    </>
  );
}

/** Why the new password pair is refused before it is checked further, or null. */
export function confirmProblem(body: URLSearchParams): string | null {
  return (body.get("new_password") ?? "") === (body.get("confirm_password") ?? "")
    ? null
    : "The new password and its confirmation differ. Type the same password twice.";
}

/** A one-time link page's data: the link is gone, or what it offers and the last error. */
export type LinkData<T> = { gone: true } | (T & { gone?: false; error?: string });

/**
 * The handlers of a one-time link page (invitation, password reset). GET shows what
 * `load` finds (404 once the link is gone). POST loads again, spends the sign-in budget
 * (429), checks the new password's confirmation when `confirms` says the form has one
 * (400), then runs `act`: an AppError below 500 from it is shown on the page (404: gone).
 */
export function linkHandlers<T extends object>(o: {
  title: string;
  load: (ctx: PageContext) => Promise<LinkData<T>>;
  confirms: (data: T) => boolean;
  act: (ctx: PageContext, data: T) => Promise<Response>;
}): Handlers<PageContext, LinkData<T>> {
  const title = o.title;
  return define.handlers<LinkData<T>>({
    async GET(ctx) {
      const data = await o.load(ctx);
      return page(data, { title, status: data.gone ? 404 : 200 });
    },
    async POST(ctx) {
      const data = await o.load(ctx);
      if (data.gone) return page(data, { title, status: 404 });
      const offer = data as T & { gone?: false; error?: string };
      if (!(await spendSignInBudget(ctx.deps, clientIp(ctx.c, ctx.deps.config.trustProxy)))) {
        return page({ ...offer, error: TOO_MANY }, { title, status: 429 });
      }
      const mismatch = o.confirms(offer) ? confirmProblem(ctx.body) : null;
      if (mismatch) return page({ ...offer, error: mismatch }, { title, status: 400 });
      try {
        return await o.act(ctx, offer);
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        if (err.status === 404) return page({ gone: true }, { title, status: 404 });
        return page({ ...offer, error: err.message }, { title, status: err.status });
      }
    },
  });
}
