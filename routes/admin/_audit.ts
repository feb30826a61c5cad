/**
 * Audit events of admin pages: the signed-in user is the actor (`user:<email>`), the
 * client's address (stored truncated) is where from.
 * @module
 */
import { clientIp } from "@/lib/http/http.ts";
import { audit, type AuditAction, type AuditBy } from "@/lib/privacy/audit.ts";
import type { PageContext } from "./_page.ts";

/** Who acts in this request (the signed-in user) and from which address, for lib calls. */
export function auditBy(ctx: PageContext): AuditBy {
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
  await audit(ctx.deps, { workspaceId, action, ...auditBy(ctx), details });
}
