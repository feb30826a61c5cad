/**
 * Invitations to a workspace by email link: single-use, expiring, one pending per email
 * and workspace, and only as good as their inviter: a link works while the owner who sent
 * it may still grant its role. KV keeps only the SHA-256 of the link's token. Inviting,
 * joining and withdrawing are audited in the same commit.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { newId, randomBase62, sha256Hex } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import { type AuditBy, auditMutation } from "@/lib/privacy/audit.ts";
import type { Role, User, Workspace } from "@/lib/schemas.ts";
import { type AccountLink, enqueueAccountMail, logAccountLink } from "./mail.ts";
import { mayGrant, roleIn, withMembership } from "./members.ts";
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
  /** The inviter's email. */
  invited_by: string;
  /** The inviter's user id. */
  invited_by_id: string;
  created_at: number;
  expires_at: number;
}

/** A pending invitation as listed (its hash names it for withdrawal, never the token). */
export interface InviteView extends Invite {
  hash: string;
}

/**
 * Invites `email` to a workspace with `role` and mails the link (audited `member.invited`).
 * A second invitation to the same email replaces the first (its link stops working).
 * Members cannot be invited again. Returns the link, for the inviter to pass on when the
 * server sends no email.
 */
export async function createInvite(
  deps: Pick<Deps, "kv" | "now" | "config" | "jobs">,
  input: { workspace: Workspace; email: string; role: Role; invitedBy: User },
  by: AuditBy,
): Promise<AccountLink> {
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
    invited_by_id: input.invitedBy.id,
    created_at: now,
    expires_at: now + INVITE_TTL_MS,
  };
  const link: AccountLink = {
    kind: "invitation",
    url: `${deps.config.baseUrl}/admin/invite/${token}`,
    expires_at: invite.expires_at,
  };
  const index = keys.inviteByWorkspace(input.workspace.id, email);
  await commitWithRetry(deps.kv, async (op) => {
    const prior = await deps.kv.get<string>(index);
    op.check(prior)
      .check({ key: keys.invite(hash), versionstamp: null })
      .set(keys.invite(hash), invite, { expireIn: INVITE_TTL_MS })
      .set(index, hash, { expireIn: INVITE_TTL_MS });
    if (prior.value) op.delete(keys.invite(prior.value));
    enqueueAccountMail(deps, op, inviteMail(input.workspace, invite, link.url));
    auditMutation(op, now, {
      workspaceId: input.workspace.id,
      action: "member.invited",
      ...by,
      details: { email, role: input.role, replaced: prior.value !== null },
    });
    return true;
  });
  logAccountLink(deps, email, link);
  return link;
}

function inviteMail(workspace: Workspace, invite: Invite, url: string) {
  return {
    to: invite.email,
    subject: `You are invited to ${workspace.name} on Formwell`,
    text: [
      `${invite.invited_by} invited you to the workspace "${workspace.name}" on Formwell`,
      `as ${invite.role}.`,
      "",
      `Accept the invitation: ${url}`,
      "",
      "The link works once and expires in 7 days. If you did not expect this, ignore this mail.",
    ].join("\n"),
  };
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

/** Why an invitation is withdrawn: by an owner, or its inviter may no longer grant its role. */
export type WithdrawReason = "withdrawn" | "inviter_lost_role";

/**
 * Withdraws the pending invitation of `email` (its link stops working), audited
 * `invite.withdrawn`; only the one with `hash` when given. False if there is none.
 */
export async function withdrawInvite(
  deps: Pick<Deps, "kv" | "now">,
  input: { workspaceId: string; email: string; hash?: string; reason?: WithdrawReason },
  by: AuditBy,
): Promise<boolean> {
  const index = keys.inviteByWorkspace(input.workspaceId, normalizeEmail(input.email));
  const done = await commitWithRetry(deps.kv, async (op) => {
    const prior = await deps.kv.get<string>(index);
    if (!prior.value || (input.hash && prior.value !== input.hash)) return null;
    const invite = await deps.kv.get<Invite>(keys.invite(prior.value));
    op.check(prior).delete(index).delete(keys.invite(prior.value));
    auditMutation(op, deps.now(), {
      workspaceId: input.workspaceId,
      action: "invite.withdrawn",
      ...by,
      details: {
        email: normalizeEmail(input.email),
        role: invite.value?.role ?? null,
        reason: input.reason ?? "withdrawn",
      },
    });
    return true;
  });
  return done === true;
}

/**
 * Withdraws the pending invitations `inviter` sent to a workspace (they were removed from
 * it or may no longer grant roles); returns how many.
 */
export async function withdrawInvitesFrom(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string,
  inviter: Pick<User, "id" | "email">,
  by: AuditBy,
): Promise<number> {
  let n = 0;
  for (const invite of await listInvites(deps, workspaceId)) {
    if (!sentBy(invite, inviter)) continue;
    const input = { workspaceId, email: invite.email, hash: invite.hash };
    if (await withdrawInvite(deps, { ...input, reason: "inviter_lost_role" }, by)) n++;
  }
  return n;
}

function sentBy(invite: Invite, user: Pick<User, "id">): boolean {
  return invite.invited_by_id === user.id;
}

/** A live invitation's entry and its inviter's (both checked again when it is accepted). */
interface LiveInvite {
  entry: Deno.KvEntry<Invite>;
  inviter: Deno.KvEntry<User>;
}

/** The live invitation of a link token, or null (unknown, expired, or its inviter lost the right). */
async function liveInvite(
  deps: Pick<Deps, "kv" | "now">,
  token: string,
): Promise<LiveInvite | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const hash = await sha256Hex(token);
  const entry = await withKvRetry(() => deps.kv.get<Invite>(keys.invite(hash)));
  const invite = entry.value;
  if (!invite || invite.expires_at <= deps.now()) return null;
  const inviter = await withKvRetry(() => deps.kv.get<User>(keys.user(invite.invited_by_id)));
  if (!inviter.value || !mayGrant(roleIn(inviter.value, invite.workspace_id))) return null;
  return { entry: entry as Deno.KvEntry<Invite>, inviter: inviter as Deno.KvEntry<User> };
}

/** The live invitation of a link token, or null. */
export async function findInvite(
  deps: Pick<Deps, "kv" | "now">,
  token: string,
): Promise<Invite | null> {
  return (await liveInvite(deps, token))?.entry.value ?? null;
}

/** Why an invitation link does not work, in words. */
export const INVITE_GONE =
  "This invitation link does not work any more: it was used, withdrawn or replaced, it " +
  "expired, or whoever sent it may no longer invite. Ask an owner of the workspace for a " +
  "new one.";

/**
 * Accepts an invitation, once, while its inviter may still grant its role (checked in the
 * same commit): a new account is created with `password`, an existing one must give its
 * password and gains the workspace. Audited `member.joined`. Returns the member's record.
 */
export async function acceptInvite(
  deps: Pick<Deps, "kv" | "now">,
  input: { token: string; password: string; ip?: string | null },
): Promise<User> {
  const live = await liveInvite(deps, input.token);
  if (!live) throw errors.notFound(INVITE_GONE);
  const { entry, inviter } = live;
  const invite = entry.value;
  const index = await withKvRetry(() =>
    deps.kv.get<string>(keys.inviteByWorkspace(invite.workspace_id, invite.email))
  );
  const byEmail = await withKvRetry(() => deps.kv.get<string>(keys.userByEmail(invite.email)));
  const userEntry = byEmail.value
    ? await withKvRetry(() => deps.kv.get<User>(keys.user(byEmail.value!)))
    : null;
  let user: User;
  // The inviter's record is checked too: a demotion or removal meanwhile voids the link.
  let op = deps.kv.atomic().check(entry).check(byEmail).check(inviter).delete(entry.key);
  if (index.value === entry.key.at(-1)) op = op.check(index).delete(index.key);
  if (userEntry?.value) {
    if (!(await verifyPassword(input.password, userEntry.value.password_hash))) {
      throw new AppError(401, "unauthorized", "That is not the password of this account.");
    }
    user = roleIn(userEntry.value, invite.workspace_id)
      ? userEntry.value
      : withMembership(userEntry.value, invite.workspace_id, invite.role);
    op = op.check(userEntry).set(userEntry.key, user);
  } else {
    const weak = passwordProblem(input.password);
    if (weak) throw errors.badRequest(weak);
    user = withMembership(
      {
        id: newId("usr"),
        email: invite.email,
        password_hash: await hashPassword(input.password),
        workspace_ids: [],
        owner: false,
        created_at: new Date(deps.now()).toISOString(),
      },
      invite.workspace_id,
      invite.role,
    );
    op = op.set(keys.user(user.id), user).set(keys.userByEmail(invite.email), user.id);
  }
  auditMutation(op, deps.now(), {
    workspaceId: invite.workspace_id,
    action: "member.joined",
    actor: `user:${invite.email}`,
    ip: input.ip,
    details: {
      user_id: user.id,
      email: invite.email,
      role: invite.role,
      invited_by: invite.invited_by,
    },
  });
  // One commit: a second use of the link (or a race with another) finds the invite gone.
  const res = await withKvRetry(() => op.commit());
  if (!res.ok) throw errors.notFound(INVITE_GONE);
  return user;
}
