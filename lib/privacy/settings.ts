/**
 * A form's privacy settings from its definition: retention, IP and user-agent policy.
 * On create an omitted setting takes the workspace default (retention) or the built-in
 * default; on update an omitted setting keeps the form's current value.
 * @module
 */
import type { Form, FormDefinition, Workspace } from "@/lib/schemas.ts";
import { privacyOf } from "./ip.ts";

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
