/**
 * A suspended workspace is read-only: its forms, submissions, keys and exports can be looked
 * at in the admin, but nothing is created, changed, deleted or exported until an instance
 * owner unsuspends it (revoking a key stays allowed: it only takes access away).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { Workspace } from "@/lib/schemas.ts";

/** What a refused change says, in the admin and on the command line. */
export const SUSPENDED_MESSAGE =
  "This workspace is suspended: it is read-only. An instance owner can unsuspend it.";

/** The 403 for a change to a suspended workspace. */
export function workspaceSuspended(): AppError {
  return new AppError(403, "forbidden", SUSPENDED_MESSAGE);
}

/** Throws the 403 when the workspace record says it is suspended. */
export function assertNotSuspended(workspace: Pick<Workspace, "suspended">): void {
  if (workspace.suspended) throw workspaceSuspended();
}

/**
 * The workspace's entry, for a change to check in its commit (so a suspension landing
 * in between fails the commit): 404 when missing, 403 when suspended.
 */
export async function writableWorkspace(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
): Promise<Deno.KvEntry<Workspace>> {
  const entry = await withKvRetry(() => deps.kv.get<Workspace>(keys.workspace(workspaceId)));
  if (!entry.value) throw errors.notFound("Workspace not found.");
  assertNotSuspended(entry.value);
  return entry as Deno.KvEntry<Workspace>;
}

/** 403 when the form's workspace is suspended; a missing form is left to the caller. */
export async function assertFormWritable(deps: Pick<Deps, "kv">, formId: string): Promise<void> {
  const form = await withKvRetry(() => deps.kv.get<{ workspace_id: string }>(keys.form(formId)));
  if (form.value) await writableWorkspace(deps, form.value.workspace_id);
}
