/**
 * Workspace members and their roles. A user's record is the source of truth
 * (`workspace_ids` plus `roles`); a workspace's members are found by scanning users, who
 * are an instance's staff and few.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry } from "@/lib/kv/kv.ts";
import { type AuditBy, auditMutation } from "@/lib/privacy/audit.ts";
import { type Role, ROLES, type User } from "@/lib/schemas.ts";

/** A member as the members page lists them. */
export interface Member {
  user_id: string;
  email: string;
  /** Null for a member with no stored role: they may use nothing until an owner gives one. */
  role: Role | null;
  /** An instance owner is an owner everywhere; their role is not changed here. */
  instance_owner: boolean;
}

/** Whether `value` names a role. */
export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/**
 * A user's role in a workspace: owner for instance owners, the stored role for members,
 * and null for non-members and for a member with no stored role (no default grants).
 */
export function roleIn(user: User, workspaceId: string): Role | null {
  if (user.owner) return "owner";
  if (!user.workspace_ids.includes(workspaceId)) return null;
  const role = user.roles?.[workspaceId];
  return role !== undefined && isRole(role) ? role : null;
}

/** Whether `role` grants at least what `need` does. */
export function atLeast(role: Role | null, need: Role): boolean {
  return role !== null && ROLES.indexOf(role) >= ROLES.indexOf(need);
}

/**
 * Whether someone with role `granter` may give a role now: only owners manage members, and
 * they may give any role.
 */
export function mayGrant(granter: Role | null): boolean {
  return granter === "owner";
}

/** A user with a workspace added (or its role replaced). */
export function withMembership(user: User, workspaceId: string, role: Role): User {
  const ids = user.workspace_ids.includes(workspaceId)
    ? user.workspace_ids
    : [...user.workspace_ids, workspaceId];
  return { ...user, workspace_ids: ids, roles: { ...user.roles, [workspaceId]: role } };
}

/** The members of a workspace, owners first, then by email. */
export async function listMembers(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
): Promise<Member[]> {
  return (await memberEntries(deps, workspaceId)).map((e) => memberOf(e.value, workspaceId))
    .sort((a, b) => rank(b.role) - rank(a.role) || a.email.localeCompare(b.email));
}

/** A role's place in {@linkcode ROLES}; no role comes last. */
function rank(role: Role | null): number {
  return role === null ? -1 : ROLES.indexOf(role);
}

async function memberEntries(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
): Promise<Deno.KvEntry<User>[]> {
  const out: Deno.KvEntry<User>[] = [];
  for await (const e of deps.kv.list<User>({ prefix: keys.users() })) {
    if (e.value.workspace_ids.includes(workspaceId)) out.push(e);
  }
  return out;
}

function memberOf(user: User, workspaceId: string): Member {
  return {
    user_id: user.id,
    email: user.email,
    role: roleIn(user, workspaceId),
    instance_owner: user.owner,
  };
}

/**
 * Sets a member's role (`null` removes them), audited (`member.role_changed` or
 * `member.removed`) in the same commit. A workspace keeps at least one owner: taking the
 * last one away is refused, checked in the same commit as another owner's record, so two
 * owners demoting each other at once cannot both succeed. Returns the role before (null: none).
 */
export async function setMemberRole(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string,
  userId: string,
  role: Role | null,
  by: AuditBy,
): Promise<Role | null> {
  const before = await commitWithRetry(deps.kv, async (op) => {
    const entries = await memberEntries(deps, workspaceId);
    const target = entries.find((e) => e.value.id === userId);
    if (!target) throw errors.notFound("That person is not a member of this workspace.");
    if (target.value.owner) {
      throw new AppError(
        409,
        "conflict",
        "An instance owner is an owner of every workspace; their role cannot change here.",
      );
    }
    const from = roleIn(target.value, workspaceId);
    op.check(target);
    if (from === "owner" && role !== "owner") {
      const other = entries.find((e) =>
        e.value.id !== userId && roleIn(e.value, workspaceId) === "owner"
      );
      if (!other) {
        throw new AppError(
          409,
          "conflict",
          "A workspace needs at least one owner. Make someone else an owner first.",
        );
      }
      op.check(other);
    }
    op.set(target.key, changed(target.value));
    auditMutation(op, deps.now(), {
      workspaceId,
      action: role ? "member.role_changed" : "member.removed",
      ...by,
      details: { user_id: userId, email: target.value.email, from, to: role },
    });
    // An object, not the role: a null from `build` would mean "nothing to commit".
    return { from };
  });
  return before!.from;

  function changed(user: User): User {
    if (role) return withMembership(user, workspaceId, role);
    const { [workspaceId]: _gone, ...roles } = user.roles ?? {};
    return { ...user, workspace_ids: user.workspace_ids.filter((w) => w !== workspaceId), roles };
  }
}
