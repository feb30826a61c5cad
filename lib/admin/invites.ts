/**
 * Invitations to a workspace by email link: single-use, expiring, one pending per email
 * and workspace. KV keeps only the SHA-256 of the link's token.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { newId, randomBase62, sha256Hex } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { Role, User, Workspace } from "@/lib/schemas.ts";
import { sendAccountMail } from "./mail.ts";
import { roleIn, withMembership } from "./members.ts";
import { hashPassword, passwordProblem, verifyPassword } from "./passwords.ts";
import { findUserByEmail, normalizeEmail, validEmail } from "./users.ts";

/** An invitation link works this long. */
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** The link token: 43 base62 characters, about 256 bits. */
const TOKEN_PATTERN = /^[0-9A-Za-z]{43}$/;

/** A pending invitation. */
export interface Invite {
  workspace_id: string;
  email: string;
  role: Role;
  invited_by: string;
  created_at: number;
  expires_at: number;
}

/** A pending invitation as listed (its hash names it for withdrawal, never the token). */
export interface InviteView extends Invite {
  hash: string;
}

/**
 * Invites `email` to a workspace with `role` and mails the link. A second invitation to the
 * same email replaces the first (its link stops working). Members cannot be invited again.
 */
export async function createInvite(
  deps: Pick<Deps, "kv" | "now" | "config" | "jobs">,
  input: { workspace: Workspace; email: string; role: Role; invitedBy: User },
): Promise<void> {
  const email = normalizeEmail(input.email);
  if (!validEmail(email)) throw errors.badRequest("Enter the email address to invite.");
  const existing = await findUserByEmail(deps, email);
  if (existing && roleIn(existing, input.workspace.id) && !existing.owner) {
    throw new AppError(409, "conflict", `${email} is already a member of this workspace.`);
  }
  const token = randomBase62(43);
  const hash = await sha256Hex(token);
  const now = deps.now();
  const invite: Invite = {
    workspace_id: input.workspace.id,
    email,
    role: input.role,
    invited_by: input.invitedBy.email,
    created_at: now,
    expires_at: now + INVITE_TTL_MS,
  };
  const index = keys.inviteByWorkspace(input.workspace.id, email);
  for (let attempt = 0;; attempt++) {
    const prior = await withKvRetry(() => deps.kv.get<string>(index));
    const op = deps.kv.atomic().check(prior)
      .check({ key: keys.invite(hash), versionstamp: null })
      .set(keys.invite(hash), invite, { expireIn: INVITE_TTL_MS })
      .set(index, hash, { expireIn: INVITE_TTL_MS });
    if (prior.value) op.delete(keys.invite(prior.value));
    if ((await withKvRetry(() => op.commit())).ok) break;
    if (attempt >= 9) throw new Error("invitation kept conflicting");
  }
  const link = `${deps.config.baseUrl}/admin/invite/${token}`;
  await sendAccountMail(deps, {
    to: email,
    subject: `You are invited to ${input.workspace.name} on Formwell`,
    text: [
      `${input.invitedBy.email} invited you to the workspace "${input.workspace.name}" on Formwell`,
      `as ${input.role}.`,
      "",
      `Accept the invitation: ${link}`,
      "",
      "The link works once and expires in 7 days. If you did not expect this, ignore this mail.",
    ].join("\n"),
  });
}

/** The workspace's pending (unexpired) invitations, by email. */
export async function listInvites(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string,
): Promise<InviteView[]> {
  const out: InviteView[] = [];
  for await (const e of deps.kv.list<string>({ prefix: keys.invitesByWorkspace(workspaceId) })) {
    const invite = (await withKvRetry(() => deps.kv.get<Invite>(keys.invite(e.value)))).value;
    if (invite && invite.expires_at > deps.now()) out.push({ ...invite, hash: e.value });
  }
  return out;
}

/** Withdraws the pending invitation of `email` (its link stops working); false if none. */
export async function withdrawInvite(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
  email: string,
): Promise<boolean> {
  const index = keys.inviteByWorkspace(workspaceId, normalizeEmail(email));
  const prior = await withKvRetry(() => deps.kv.get<string>(index));
  if (!prior.value) return false;
  const res = await withKvRetry(() =>
    deps.kv.atomic().check(prior).delete(index).delete(keys.invite(prior.value!)).commit()
  );
  return res.ok;
}

/** The live invitation of a link token (entry for the single-use check), or null. */
export async function findInvite(
  deps: Pick<Deps, "kv" | "now">,
  token: string,
): Promise<Deno.KvEntry<Invite> | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const hash = await sha256Hex(token);
  const entry = await withKvRetry(() => deps.kv.get<Invite>(keys.invite(hash)));
  if (!entry.value || entry.value.expires_at <= deps.now()) return null;
  return entry as Deno.KvEntry<Invite>;
}

/** Why an invitation link does not work, in words. */
export const INVITE_GONE =
  "This invitation link does not work any more: it was used, withdrawn or replaced, or it " +
  "expired. Ask the workspace owner for a new one.";

/**
 * Accepts an invitation, once: a new account is created with `password`, an existing one
 * must give its password and gains the workspace. Returns the member's user record.
 */
export async function acceptInvite(
  deps: Pick<Deps, "kv" | "now">,
  token: string,
  password: string,
): Promise<User> {
  const entry = await findInvite(deps, token);
  if (!entry) throw errors.notFound(INVITE_GONE);
  const invite = entry.value;
  const hash = await sha256Hex(token);
  const index = await withKvRetry(() =>
    deps.kv.get<string>(keys.inviteByWorkspace(invite.workspace_id, invite.email))
  );
  const byEmail = await withKvRetry(() => deps.kv.get<string>(keys.userByEmail(invite.email)));
  const userEntry = byEmail.value
    ? await withKvRetry(() => deps.kv.get<User>(keys.user(byEmail.value!)))
    : null;
  let user: User;
  let op = deps.kv.atomic().check(entry).check(byEmail).delete(entry.key);
  if (index.value === hash) op = op.check(index).delete(index.key);
  if (userEntry?.value) {
    if (!(await verifyPassword(password, userEntry.value.password_hash))) {
      throw new AppError(401, "unauthorized", "That is not the password of this account.");
    }
    user = roleIn(userEntry.value, invite.workspace_id)
      ? userEntry.value
      : withMembership(userEntry.value, invite.workspace_id, invite.role);
    op = op.check(userEntry).set(userEntry.key, user);
  } else {
    const weak = passwordProblem(password);
    if (weak) throw errors.badRequest(weak);
    user = withMembership(
      {
        id: newId("usr"),
        email: invite.email,
        password_hash: await hashPassword(password),
        workspace_ids: [],
        owner: false,
        created_at: new Date(deps.now()).toISOString(),
      },
      invite.workspace_id,
      invite.role,
    );
    op = op.set(keys.user(user.id), user).set(keys.userByEmail(invite.email), user.id);
  }
  // One commit: a second use of the link (or a race with another) finds the invite gone.
  const res = await withKvRetry(() => op.commit());
  if (!res.ok) throw errors.notFound(INVITE_GONE);
  return user;
}
