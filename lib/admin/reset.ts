/**
 * Password reset by email: a single-use link that works for 30 minutes. Asking never tells
 * whether an account exists; only the newest link of a user works, and none survives a
 * password change.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { randomBase62, sha256Hex } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { User } from "@/lib/schemas.ts";
import { sendAccountMail } from "./mail.ts";
import { hashPassword, passwordProblem } from "./passwords.ts";
import { findUserByEmail } from "./users.ts";

/** A reset link works this long. */
export const RESET_TTL_MS = 30 * 60 * 1000;
/** At most one reset mail per account this often (asking again sooner sends nothing). */
export const RESET_RESEND_MS = 60 * 1000;
const TOKEN_PATTERN = /^[0-9A-Za-z]{43}$/;

/** A pending reset. */
export interface PasswordReset {
  user_id: string;
  created_at: number;
  expires_at: number;
}

/** What the index of a user's newest reset holds. */
interface NewestReset {
  hash: string;
  created_at: number;
}

/** The one answer to every reset request, whether or not the account exists. */
export const RESET_REQUESTED =
  "If an account uses that email, a link to choose a new password is on its way. It works " +
  "once, for 30 minutes.";

/** Why a reset link does not work, in words. */
export const RESET_GONE =
  "This reset link does not work any more: it was used, replaced by a newer one, or it " +
  "expired (links last 30 minutes). Ask for a new one.";

/**
 * Mails a reset link when `email` has an account; does nothing visible otherwise (the caller
 * answers {@linkcode RESET_REQUESTED} either way). A newer link replaces an older one.
 */
export async function requestPasswordReset(
  deps: Pick<Deps, "kv" | "now" | "config" | "jobs">,
  email: string,
): Promise<void> {
  const token = randomBase62(43);
  const hash = await sha256Hex(token);
  const user = await findUserByEmail(deps, email);
  if (!user) return;
  const now = deps.now();
  const index = keys.passwordResetByUser(user.id);
  const prior = await withKvRetry(() => deps.kv.get<NewestReset>(index));
  if (prior.value && now - prior.value.created_at < RESET_RESEND_MS) return;
  const reset: PasswordReset = {
    user_id: user.id,
    created_at: now,
    expires_at: now + RESET_TTL_MS,
  };
  const op = deps.kv.atomic().check(prior)
    .set(keys.passwordReset(hash), reset, { expireIn: RESET_TTL_MS })
    .set(index, { hash, created_at: now }, { expireIn: RESET_TTL_MS });
  if (prior.value) op.delete(keys.passwordReset(prior.value.hash));
  // A lost race means another request just mailed a link; one mail is enough.
  if (!(await withKvRetry(() => op.commit())).ok) return;
  await sendAccountMail(deps, {
    to: user.email,
    subject: "Choose a new Formwell password",
    text: [
      "Someone (hopefully you) asked to reset the password of your Formwell account.",
      "",
      `Choose a new password: ${deps.config.baseUrl}/admin/reset/${token}`,
      "",
      "The link works once, for 30 minutes. If you did not ask, ignore this mail: your",
      "password stays as it is.",
    ].join("\n"),
  });
}

/** The live reset of a link token and its user's entry, or null. */
export async function findReset(
  deps: Pick<Deps, "kv" | "now">,
  token: string,
): Promise<{ entry: Deno.KvEntry<PasswordReset>; user: Deno.KvEntry<User> } | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const hash = await sha256Hex(token);
  const entry = await withKvRetry(() => deps.kv.get<PasswordReset>(keys.passwordReset(hash)));
  const reset = entry.value;
  if (!reset || reset.expires_at <= deps.now()) return null;
  const user = await withKvRetry(() => deps.kv.get<User>(keys.user(reset.user_id)));
  // A password changed after the link was sent makes the link void.
  if (!user.value || (user.value.password_changed_at ?? 0) > reset.created_at) return null;
  return {
    entry: entry as Deno.KvEntry<PasswordReset>,
    user: user as Deno.KvEntry<User>,
  };
}

/**
 * Sets a new password through a reset link, once; every session of the user ends. Returns
 * the user's email (to prefill the sign-in form).
 */
export async function completePasswordReset(
  deps: Pick<Deps, "kv" | "now">,
  token: string,
  password: string,
): Promise<string> {
  const found = await findReset(deps, token);
  if (!found) throw errors.notFound(RESET_GONE);
  const weak = passwordProblem(password);
  if (weak) throw errors.badRequest(weak);
  const user: User = {
    ...found.user.value,
    password_hash: await hashPassword(password),
    password_changed_at: deps.now(),
  };
  const index = keys.passwordResetByUser(user.id);
  const res = await withKvRetry(() =>
    deps.kv.atomic().check(found.entry).check(found.user)
      .delete(found.entry.key).delete(index).set(found.user.key, user).commit()
  );
  // The link was used (or the account changed) in between: the same answer as a dead link.
  if (!res.ok) throw errors.notFound(RESET_GONE);
  return user.email;
}
