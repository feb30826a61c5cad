/**
 * Changing a member as the members page does: the role change (or removal) and, when the
 * member may no longer grant roles there, the withdrawal of the invitations they sent.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import type { AuditBy } from "@/lib/privacy/audit.ts";
import type { Role } from "@/lib/schemas.ts";
import { withdrawInvitesFrom } from "./invites.ts";
import { mayGrant, setMemberRole } from "./members.ts";
import { getUser } from "./users.ts";

/**
 * Sets a member's role (`null` removes them; see `setMemberRole`), then withdraws their
 * pending invitations to the workspace if the new role may not grant roles. Accepting an
 * invitation checks its inviter again, so a failure between the two steps grants nothing.
 */
export async function changeMember(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string,
  userId: string,
  role: Role | null,
  by: AuditBy,
): Promise<void> {
  await setMemberRole(deps, workspaceId, userId, role, by);
  if (mayGrant(role)) return;
  const user = await getUser(deps, userId);
  if (user) await withdrawInvitesFrom(deps, workspaceId, user, by);
}
