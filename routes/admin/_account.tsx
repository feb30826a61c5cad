/**
 * Shared by the account pages (account, invitation, password reset): the sign-in budget
 * that slows password guessing, and the new-password inputs.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError } from "@/lib/errors.ts";
import { enforceLimit, ipIdentity } from "@/lib/ratelimit/rate_limit.ts";

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
