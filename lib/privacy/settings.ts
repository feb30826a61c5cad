/**
 * A form's privacy settings from its definition: retention, IP and user-agent policy.
 * On create an omitted setting takes the workspace default (retention) or the built-in
 * default; on update an omitted setting keeps the form's current value.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import {
  type Form,
  type FormDefinition,
  retentionDaysSchema,
  type Workspace,
} from "@/lib/schemas.ts";
import { auditMutation } from "./audit.ts";
import { privacyOf } from "./ip.ts";

/** Commit attempts of a settings change before it answers 503. */
const MAX_ATTEMPTS = 10;

type PrivacyInput = Pick<FormDefinition, "retention_days" | "store_ip" | "store_user_agent">;
type PrivacySettings = Required<Pick<Form, "retention_days" | "store_ip" | "store_user_agent">>;

/** Settings of a new form of `workspace`. */
export function privacyOnCreate(def: PrivacyInput, workspace: Workspace | null): PrivacySettings {
  return privacyOf({
    retention_days: def.retention_days !== undefined
      ? def.retention_days
      : workspace?.default_retention_days ?? null,
    store_ip: def.store_ip,
    store_user_agent: def.store_user_agent,
  });
}

/** Settings of `form` after an update with `def`. */
export function privacyOnUpdate(def: PrivacyInput, form: Form): PrivacySettings {
  const now = privacyOf(form);
  return {
    retention_days: def.retention_days !== undefined ? def.retention_days : now.retention_days,
    store_ip: def.store_ip ?? now.store_ip,
    store_user_agent: def.store_user_agent ?? now.store_user_agent,
  };
}

/** When the next removal for `form` is due: its oldest kept submission's expiry, or null. */
export function nextRemoval(
  form: Pick<Form, "retention_days">,
  oldestCreatedAt: string | null,
  now: number,
): string | null {
  const days = form.retention_days ?? null;
  if (days === null || !oldestCreatedAt) return null;
  const due = Date.parse(oldestCreatedAt) + days * 86_400_000;
  return new Date(Math.max(due, now)).toISOString();
}

/** Sets a form's retention (null = forever) and audits the change; returns the form. */
export async function setFormRetention(
  deps: Pick<Deps, "kv" | "now">,
  formId: string,
  days: number | null,
  who: { actor: string; ip?: string | null },
): Promise<Form> {
  const valid = retentionDaysSchema.safeParse(days);
  if (!valid.success) throw errors.badRequest("retention_days must be null or 1..3650.");
  return await commitChange<Form>(deps, keys.form(formId), (form, op) => {
    const next = { ...form, retention_days: days, updated_at: new Date(deps.now()).toISOString() };
    auditMutation(op, deps.now(), {
      workspaceId: form.workspace_id,
      action: "form.retention_changed",
      ...who,
      details: { form: form.id, from: form.retention_days ?? null, to: days },
    });
    return next;
  }, errors.formNotFound);
}

/** Sets the retention new forms of a workspace get (null = forever) and audits it. */
export async function setDefaultRetention(
  deps: Pick<Deps, "kv" | "now">,
  workspaceId: string,
  days: number | null,
  who: { actor: string; ip?: string | null },
): Promise<Workspace> {
  const valid = retentionDaysSchema.safeParse(days);
  if (!valid.success) throw errors.badRequest("default_retention_days must be null or 1..3650.");
  return await commitChange<Workspace>(deps, keys.workspace(workspaceId), (ws, op) => {
    auditMutation(op, deps.now(), {
      workspaceId,
      action: "workspace.retention_changed",
      ...who,
      details: { from: ws.default_retention_days ?? null, to: days },
    });
    return { ...ws, default_retention_days: days };
  }, () => errors.notFound("Workspace not found."));
}

/** Reads, changes and writes one record in a checked commit (with its audit event). */
async function commitChange<T>(
  deps: Pick<Deps, "kv">,
  key: Deno.KvKey,
  change: (current: T, op: Deno.AtomicOperation) => T,
  missing: () => Error,
): Promise<T> {
  let attempts = 0;
  const next = await commitWithRetry(deps.kv, async (op) => {
    // The last conflict is a 503 (the client may retry), not an internal error.
    if (attempts++ === MAX_ATTEMPTS) throw errors.unavailable();
    const entry = await withKvRetry(() => deps.kv.get<T>(key));
    if (entry.value === null) throw missing();
    op.check(entry);
    const next = change(entry.value, op);
    op.set(key, next);
    return { next };
  }, MAX_ATTEMPTS + 1);
  return next!.next;
}
