/**
 * The audit log of a workspace: append-only events (who did what, from where, when),
 * kept 400 days. Events are written by `audit` or, inside a caller's commit, by
 * `auditMutation`; nothing edits them; the retention sweep drops expired ones.
 * @module
 */
import { z } from "zod";
import type { Deps } from "@/lib/deps.ts";
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import { pageQuerySchema, type Pagination, pagination } from "@/lib/http/pagination.ts";
import { storedIp } from "./ip.ts";

/** How long an audit event is kept. */
export const AUDIT_KEEP_DAYS = 400;
const KEEP_MS = AUDIT_KEEP_DAYS * 86_400_000;

/** Every audited action. */
export const AUDIT_ACTIONS = [
  "sign_in",
  "key.created",
  "key.revoked",
  "form.created",
  "form.changed",
  "form.deleted",
  "form.retention_changed",
  "form.notifications_changed",
  "submissions.deleted",
  "submissions.imported",
  "export.csv",
  "export.json",
  "export.privacy",
  "privacy.erasure",
  "workspace.plan_changed",
  "workspace.retention_changed",
  "member.invited",
  "member.joined",
  "member.role_changed",
  "member.removed",
  "invite.withdrawn",
  "user.password_changed",
  "user.password_reset",
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "webhook.secret_rotated",
  "webhook.test_sent",
  "submission.labelled",
  "mcp.tool_called",
  "draft.viewed",
  "draft.deleted",
] as const;
/** An audited action. */
export type AuditAction = typeof AUDIT_ACTIONS[number];

/** What the caller says happened. `actor` is `user:<email>`, `key:<prefix>` or `cli`. */
export interface AuditInput {
  workspaceId: string;
  action: AuditAction;
  actor: string;
  /** The client's address; stored truncated (IPv4 /24, IPv6 /48), like a form's default. */
  ip?: string | null;
  details?: Record<string, unknown>;
}

/** Who did it and from where, as an audited lib function takes it. */
export type AuditBy = Pick<AuditInput, "actor" | "ip">;

/** A stored audit event. */
export interface AuditEvent {
  id: string;
  action: AuditAction;
  actor: string;
  ip: string | null;
  at: string;
  details: Record<string, unknown>;
  expires_at: string;
}

function eventOf(now: number, input: AuditInput): AuditEvent {
  return {
    id: newId("evt"),
    action: input.action,
    actor: input.actor.slice(0, 200),
    ip: storedIp("truncated", input.ip ?? undefined) ?? null,
    at: new Date(now).toISOString(),
    details: input.details ?? {},
    expires_at: new Date(now + KEEP_MS).toISOString(),
  };
}

/** Adds an audit event to a caller's atomic operation (one mutation, no check). */
export function auditMutation(
  op: Deno.AtomicOperation,
  now: number,
  input: AuditInput,
): AuditEvent {
  const ev = eventOf(now, input);
  op.set(keys.auditEvent(input.workspaceId, ev.id), ev, { expireIn: KEEP_MS });
  return ev;
}

/** Writes one audit event in its own commit. */
export async function audit(
  deps: Pick<Deps, "kv" | "now">,
  input: AuditInput,
): Promise<AuditEvent> {
  const op = deps.kv.atomic();
  const ev = auditMutation(op, deps.now(), input);
  const res = await withKvRetry(() => op.commit());
  if (!res.ok) throw new Error("audit write failed");
  return ev;
}

/** The audit list query: `page`, `limit`, optional `action`. */
export const auditQuerySchema = pageQuerySchema.extend({
  action: z.enum(AUDIT_ACTIONS).optional(),
});

/** A workspace's audit events, newest first, optionally of one action. */
export async function listAudit(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string,
  q: z.output<typeof auditQuerySchema>,
): Promise<{ events: Omit<AuditEvent, "expires_at">[]; pagination: Pagination }> {
  const skip = (q.page - 1) * q.limit;
  const events: Omit<AuditEvent, "expires_at">[] = [];
  const now = new Date(deps.now()).toISOString();
  let total = 0;
  const iter = deps.kv.list<AuditEvent>({ prefix: keys.auditEvents(workspaceId) }, {
    reverse: true,
    batchSize: 500,
  });
  for await (const e of iter) {
    const ev = e.value;
    if (ev.expires_at <= now || (q.action && ev.action !== q.action)) continue;
    if (total >= skip && events.length < q.limit) {
      const { expires_at: _, ...shown } = ev;
      events.push(shown);
    }
    total++;
  }
  return { events, pagination: pagination(q.page, q.limit, total) };
}

/** Deletes a workspace's expired audit events (oldest first, 100 a commit); returns how many. */
export async function sweepAudit(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string,
): Promise<number> {
  const now = new Date(deps.now()).toISOString();
  let removed = 0;
  let batch: Deno.KvKey[] = [];
  const flush = async () => {
    const op = deps.kv.atomic();
    for (const k of batch) op.delete(k);
    const res = await withKvRetry(() => op.commit());
    if (!res.ok) throw new Error("audit sweep commit failed");
    removed += batch.length;
    batch = [];
  };
  for await (const e of deps.kv.list<AuditEvent>({ prefix: keys.auditEvents(workspaceId) })) {
    // Ids sort by time and every event is kept equally long: the first unexpired ends it.
    if (e.value.expires_at > now) break;
    batch.push(e.key);
    if (batch.length === 100) await flush();
  }
  if (batch.length) await flush();
  return removed;
}
