/**
 * Password reset: a single-use link that works for 30 minutes, mailed on request or made
 * by the CLI. Asking never tells whether an account exists; only the newest link of a user
 * works, and none survives a password change.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { hmacSha256Hex } from "@/lib/hmac.ts";
import { randomBase62, sha256Hex } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import { auditMutation } from "@/lib/privacy/audit.ts";
import type { User } from "@/lib/schemas.ts";
import { type AccountLink, type AccountMail, enqueueAccountMail, logAccountLink } from "./mail.ts";
import { hashPassword, passwordProblem } from "./passwords.ts";
import { clearSignInFailures } from "./signin.ts";
import { findUserByEmail, normalizeEmail } from "./users.ts";

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
  /** Who made the link: the account holder through the form, or an operator's CLI. */
  via?: "form" | "cli";
}

/** What the index of a user's newest reset holds. */
interface NewestReset {
  hash: string;
  created_at: number;
}

/** Why a reset link does not work, in words. */
export const RESET_GONE =
  "This reset link does not work any more: it was used, replaced by a newer one, or it " +
  "expired (links last 30 minutes). Ask for a new one.";

/**
 * Mails a reset link when `email` has an account (the caller gives the same answer either
 * way). An unknown email does the same work (the same lookups, token and commit, kept
 * under an id no user has) except the mail, so neither the answer, its timing nor the
 * resend limit tells whether the account exists. A newer link replaces an older one.
 */
export async function requestPasswordReset(
  deps: Pick<Deps, "kv" | "now" | "config" | "jobs" | "secret">,
  email: string,
): Promise<void> {
  const token = randomBase62(43);
  const hash = await sha256Hex(token);
  const user = await findUserByEmail(deps, email);
  const owner = user?.id ??
    `nobody_${hmacSha256Hex(deps.secret, `reset:${normalizeEmail(email)}`)}`;
  const reset = newReset(deps, owner, "form");
  const prior = await withKvRetry(() => deps.kv.get<NewestReset>(keys.passwordResetByUser(owner)));
  if (prior.value && reset.created_at - prior.value.created_at < RESET_RESEND_MS) return;
  const op = storeReset(deps.kv.atomic(), prior, hash, reset);
  const link = resetLink(deps, token, reset);
  if (user) enqueueAccountMail(deps, op, resetMail(user.email, link.url));
  // A lost race means another request just mailed a link; one mail is enough.
  if (!(await withKvRetry(() => op.commit())).ok) return;
  if (user) logAccountLink(deps, user.email, link);
}

/**
 * Makes a reset link for an account without mailing it (the CLI prints it, for an
 * operator whose instance sends no email). The same rules as a mailed link.
 */
export async function createResetLink(
  deps: Pick<Deps, "kv" | "now" | "config">,
  email: string,
): Promise<AccountLink> {
  const user = await findUserByEmail(deps, email);
  if (!user) throw errors.notFound("No account uses that email.");
  const token = randomBase62(43);
  const hash = await sha256Hex(token);
  const reset = newReset(deps, user.id, "cli");
  await commitWithRetry(deps.kv, async (op) => {
    const prior = await deps.kv.get<NewestReset>(keys.passwordResetByUser(user.id));
    storeReset(op, prior, hash, reset);
    return true;
  });
  return resetLink(deps, token, reset);
}

function newReset(
  deps: Pick<Deps, "now">,
  userId: string,
  via: PasswordReset["via"],
): PasswordReset {
  const now = deps.now();
  return { user_id: userId, created_at: now, expires_at: now + RESET_TTL_MS, via };
}

/** Adds a reset (and its user's newest-reset index, replacing `prior`'s link) to `op`. */
function storeReset(
  op: Deno.AtomicOperation,
  prior: Deno.KvEntryMaybe<NewestReset>,
  hash: string,
  reset: PasswordReset,
): Deno.AtomicOperation {
  op.check(prior)
    .set(keys.passwordReset(hash), reset, { expireIn: RESET_TTL_MS })
    .set(keys.passwordResetByUser(reset.user_id), { hash, created_at: reset.created_at }, {
      expireIn: RESET_TTL_MS,
    });
  if (prior.value) op.delete(keys.passwordReset(prior.value.hash));
  return op;
}

function resetLink(deps: Pick<Deps, "config">, token: string, reset: PasswordReset): AccountLink {
  const url = `${deps.config.baseUrl}/admin/reset/${token}`;
  return { kind: "password_reset", url, expires_at: reset.expires_at };
}

function resetMail(to: string, url: string): AccountMail {
  return {
    to,
    subject: "Choose a new Formwell password",
    text: [
      "Someone (hopefully you) asked to reset the password of your Formwell account.",
      "",
      `Choose a new password: ${url}`,
      "",
      "The link works once, for 30 minutes. If you did not ask, ignore this mail: your",
      "password stays as it is.",
    ].join("\n"),
  };
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
 * Sets a new password through a reset link, once: every session of the user ends, the
 * account's sign-in lockout is cleared, and `user.password_reset` is audited in each of
 * the user's workspaces. Returns the user's email (to prefill the sign-in form).
 */
export async function completePasswordReset(
  deps: Pick<Deps, "kv" | "now" | "secret">,
  input: { token: string; password: string; ip?: string | null },
): Promise<string> {
  const found = await findReset(deps, input.token);
  if (!found) throw errors.notFound(RESET_GONE);
  const weak = passwordProblem(input.password);
  if (weak) throw errors.badRequest(weak);
  const now = deps.now();
  const user: User = {
    ...found.user.value,
    password_hash: await hashPassword(input.password),
    password_changed_at: now,
  };
  const op = deps.kv.atomic().check(found.entry).check(found.user)
    .delete(found.entry.key).delete(keys.passwordResetByUser(user.id)).set(found.user.key, user);
  clearSignInFailures(op, deps.secret, user.email);
  for (const workspaceId of user.workspace_ids) {
    auditMutation(op, now, {
      workspaceId,
      action: "user.password_reset",
      actor: `user:${user.email}`,
      ip: input.ip,
      details: { user_id: user.id, email: user.email, via: found.entry.value.via ?? "form" },
    });
  }
  const res = await withKvRetry(() => op.commit());
  // The link was used (or the account changed) in between: the same answer as a dead link.
  if (!res.ok) throw errors.notFound(RESET_GONE);
  return user.email;
}
