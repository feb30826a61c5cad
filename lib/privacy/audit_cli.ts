/**
 * Audit events for CLI commands (actor `cli`): called once after a command succeeded,
 * with its arguments and its printed result. Commands that change nothing audited are
 * ignored.
 * @module
 */
import { parseArgs } from "node:util";
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { ApiKey, Form } from "@/lib/schemas.ts";
import { audit, type AuditAction } from "./audit.ts";

/** The CLI's options that take a value (so their values are not read as positionals). */
const STRING_OPTIONS = [
  "workspace",
  "form",
  "key",
  "plan",
  "file",
  "name",
  "type",
  "scopes",
  "email",
  "password",
  "url",
  "events",
  "forms",
  "webhook",
  "days",
  "mode",
  "format",
];

/** Writes the audit event of a successful CLI command, if it is an audited one. */
export async function auditCli(
  deps: Pick<Deps, "kv" | "now">,
  args: string[],
  out: unknown,
): Promise<void> {
  const options = Object.fromEntries(STRING_OPTIONS.map((n) => [n, { type: "string" as const }]));
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    strict: false,
    options,
  });
  const v = values as Record<string, string | boolean | undefined>;
  const str = (name: string) => typeof v[name] === "string" ? v[name] as string : "";
  const result = (out ?? {}) as Record<string, unknown>;
  let action: AuditAction | null = null;
  let workspaceId = "";
  const details: Record<string, unknown> = {};
  switch (positionals.slice(0, 2).join(" ")) {
    case "workspace set-plan":
      [action, workspaceId, details.plan] = [
        "workspace.plan_changed",
        str("workspace"),
        str("plan"),
      ];
      break;
    case "form create":
      [action, workspaceId, details.form] = ["form.created", str("workspace"), result.public_id];
      details.retention_days = result.retention_days ?? null;
      break;
    case "form update": {
      const form = (await withKvRetry(() => deps.kv.get<Form>(keys.form(str("form"))))).value;
      [action, workspaceId, details.form] = ["form.changed", form?.workspace_id ?? "", str("form")];
      details.retention_days = form?.retention_days ?? null;
      break;
    }
    case "key create":
      [action, workspaceId, details.prefix] = ["key.created", str("workspace"), result.prefix];
      details.key_id = result.id;
      break;
    case "key revoke": {
      const key = (await withKvRetry(() => deps.kv.get<ApiKey>(keys.apiKey(str("key"))))).value;
      [action, workspaceId, details.prefix] = ["key.revoked", key?.workspace_id ?? "", key?.prefix];
      details.key_id = str("key");
      break;
    }
  }
  if (action && workspaceId) await audit(deps, { workspaceId, action, actor: "cli", details });
}
