/**
 * Workspaces: the tenant that owns forms, keys and a plan.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { PlanName } from "./plans.ts";
import type { Workspace } from "@/lib/schemas.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";

/** Creates a workspace. */
export async function createWorkspace(
  deps: Pick<Deps, "kv" | "now">,
  input: { name: string; plan: PlanName },
): Promise<Workspace> {
  const ws: Workspace = {
    id: newId("ws"),
    name: input.name.trim().slice(0, 200) || "Workspace",
    plan: input.plan,
    suspended: false,
    created_at: new Date(deps.now()).toISOString(),
  };
  const res = await withKvRetry(() =>
    deps.kv.atomic().check({ key: keys.workspace(ws.id), versionstamp: null }).set(
      keys.workspace(ws.id),
      ws,
    )
      .commit()
  );
  if (!res.ok) throw new Error("workspace id collision");
  return ws;
}

/** A workspace, or null. */
export async function getWorkspace(deps: Pick<Deps, "kv">, id: string): Promise<Workspace | null> {
  return (await withKvRetry(() => deps.kv.get<Workspace>(keys.workspace(id)))).value;
}

/** A workspace, or a 404 AppError. */
export async function requireWorkspace(deps: Pick<Deps, "kv">, id: string): Promise<Workspace> {
  const ws = await getWorkspace(deps, id);
  if (!ws) throw errors.notFound("Workspace not found.");
  return ws;
}

/** Applies `change` to a workspace with an optimistic check; returns the new record. */
export async function updateWorkspace(
  deps: Pick<Deps, "kv">,
  id: string,
  change: Partial<Pick<Workspace, "name" | "plan" | "suspended">>,
): Promise<Workspace> {
  const next = await commitWithRetry(deps.kv, async (op) => {
    const entry = await withKvRetry(() => deps.kv.get<Workspace>(keys.workspace(id)));
    if (!entry.value) throw errors.notFound("Workspace not found.");
    const next = { ...entry.value, ...change };
    op.check(entry).set(entry.key, next);
    return next;
  }, 10);
  return next!;
}

/** Every workspace (instance owners only; workspaces are few). */
export async function listWorkspaces(deps: Pick<Deps, "kv">): Promise<Workspace[]> {
  const out: Workspace[] = [];
  for await (const e of deps.kv.list<Workspace>({ prefix: keys.workspaces() })) out.push(e.value);
  return out;
}
