/**
 * Audit events of admin pages: the signed-in user is the actor (`user:<email>`), the
 * client's address (stored truncated) is where from.
 * @module
 */
import { clientIp } from "@/lib/http/http.ts";
import { audit, type AuditAction, type AuditInput } from "@/lib/privacy/audit.ts";
import type { PageContext } from "./_page.ts";

/** Who the audit log names for what the signed-in user does: the actor and the address. */
export function adminActor(ctx: PageContext): Pick<AuditInput, "actor" | "ip"> {
  return {
    actor: `user:${ctx.state?.user.email ?? "unknown"}`,
    ip: clientIp(ctx.c, ctx.deps.config.trustProxy),
  };
}

/** Writes one audit event for what the signed-in user just did in `workspaceId`. */
export async function adminAudit(
  ctx: PageContext,
  workspaceId: string,
  action: AuditAction,
  details: Record<string, unknown> = {},
): Promise<void> {
  await audit(ctx.deps, { workspaceId, action, ...adminActor(ctx), details });
}
