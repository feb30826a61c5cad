/**
 * API keys' lifecycle: creating (the raw value returned once, stored only as a SHA-256
 * digest), listing and revoking. The raw key's shape is in format.ts, authentication in
 * auth.ts (re-exported here for existing callers).
 * @module
 */
import { count } from "@/components/count.ts";
import { assertNotSuspended } from "@/lib/workspaces/suspension.ts";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { newId, randomBase62, sha256Hex } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import { allowsKeys, planOf } from "@/lib/workspaces/plans.ts";
import { type ApiKey, type Scope, SCOPES, type Workspace } from "@/lib/schemas.ts";
import { checksum, keyPrefix, RANDOM_LENGTH } from "./format.ts";
import type { KeyPointer } from "./types.ts";

export type { CachedKey, KeyAuth } from "./types.ts";
export { authenticateKey, checkKeyWorkspace, requireScope } from "./auth.ts";
export { isWellFormedKey, keyPrefix } from "./format.ts";

/** Default scopes of a new key (SPEC part 5). */
export const DEFAULT_SCOPES: Scope[] = ["submit", "read"];

/** An API key as shown to its owner: never the hash or raw value. */
export interface ApiKeyView {
  id: string;
  name: string;
  type: "live" | "test";
  scopes: Scope[];
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked: boolean;
  over_limit: boolean;
}

/** Creates a key; fails below Starter (403) and past the plan's active-key cap (429). */
export async function createApiKey(
  deps: Pick<Deps, "kv" | "now">,
  input: { workspaceId: string; name: string; type?: "live" | "test"; scopes?: Scope[] },
): Promise<ApiKeyView & { key: string }> {
  const type = input.type ?? "live";
  const random = randomBase62(RANDOM_LENGTH);
  const raw = `fw_${type}_${random}${checksum(type, random)}`;
  const scopes = [...new Set(input.scopes?.length ? input.scopes : DEFAULT_SCOPES)];
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) {
    throw errors.badRequest(`Unknown scope ${unknown.join(", ")}; use ${SCOPES.join(", ")}.`);
  }
  if (type !== "live" && type !== "test") throw errors.badRequest("A key is live or test.");
  const name = input.name.trim().slice(0, 100);
  if (!name) throw errors.badRequest("A key needs a name.");
  const record: ApiKey = {
    id: newId("key"),
    workspace_id: input.workspaceId,
    name,
    type,
    scopes,
    prefix: keyPrefix(raw),
    hash: await sha256Hex(raw),
    created_at: new Date(deps.now()).toISOString(),
    last_used_at: null,
    revoked: false,
    revoked_at: null,
  };
  const created = await commitWithRetry(deps.kv, async (op) => {
    const ws = await withKvRetry(() => deps.kv.get<Workspace>(keys.workspace(input.workspaceId)));
    if (!ws.value) throw errors.notFound("Workspace not found.");
    assertNotSuspended(ws.value);
    if (!allowsKeys(ws.value.plan)) throw errors.planRequired();
    const version = await withKvRetry(() =>
      deps.kv.get<number>(keys.apiKeysVersion(input.workspaceId))
    );
    const active = (await listApiKeyRecords(deps, input.workspaceId)).filter((k) => !k.revoked);
    const cap = planOf(ws.value.plan).maxActiveKeys;
    if (active.length >= cap) {
      throw new AppError(
        429,
        "quota_exceeded",
        `The ${ws.value.plan} plan allows ${count(cap, "active API key")}. Revoke one, or ask ` +
          "an instance owner to raise the workspace's plan (admin Workspaces page, or " +
          "`deno task cli workspace set-plan`).",
      );
    }
    op.check(ws, version, { key: keys.apiKeyByHash(record.hash), versionstamp: null })
      .set(keys.apiKeysVersion(input.workspaceId), (version.value ?? 0) + 1)
      .set(keys.apiKey(record.id), record)
      .set(
        keys.apiKeyByHash(record.hash),
        { id: record.id, workspace_id: record.workspace_id } satisfies KeyPointer,
      )
      .set(keys.apiKeyByWorkspace(input.workspaceId, record.id), true);
    return { ...toView(record, false), key: raw };
  }, 10);
  return created!;
}

/** Revokes a key: at once on this instance, on others within the key cache's few seconds. */
export async function revokeApiKey(
  deps: Pick<Deps, "kv" | "now"> & Partial<Pick<Deps, "keyCache">>,
  keyId: string,
  workspaceId?: string,
): Promise<ApiKeyView> {
  const next = await commitWithRetry(deps.kv, async (op) => {
    const entry = await withKvRetry(() => deps.kv.get<ApiKey>(keys.apiKey(keyId)));
    if (!entry.value || (workspaceId && entry.value.workspace_id !== workspaceId)) {
      throw errors.notFound("API key not found.");
    }
    const version = await withKvRetry(() =>
      deps.kv.get<number>(keys.apiKeysVersion(entry.value!.workspace_id))
    );
    const next: ApiKey = {
      ...entry.value,
      revoked: true,
      revoked_at: entry.value.revoked_at ?? new Date(deps.now()).toISOString(),
    };
    op.check(entry, version)
      .set(entry.key, next)
      .set(keys.apiKeysVersion(next.workspace_id), (version.value ?? 0) + 1);
    return next;
  }, 10);
  // Effective on this instance's next request; others within the cache TTL.
  deps.keyCache?.delete(next!.hash);
  return toView(next!, false);
}

async function listApiKeyRecords(deps: Pick<Deps, "kv">, workspaceId: string): Promise<ApiKey[]> {
  const ids: Deno.KvKey[] = [];
  for await (const e of deps.kv.list({ prefix: keys.apiKeysByWorkspace(workspaceId) })) {
    ids.push(keys.apiKey(e.key[2] as string));
  }
  const out: ApiKey[] = [];
  for (let i = 0; i < ids.length; i += 10) {
    const entries = await withKvRetry(() => deps.kv.getMany<ApiKey[]>(ids.slice(i, i + 10)));
    for (const e of entries) if (e.value) out.push(e.value);
  }
  return out.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/**
 * A workspace's keys, oldest first. After a downgrade the oldest active keys up to the
 * plan's cap are within it; newer active ones are `over_limit` (still working).
 */
export async function listApiKeys(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
): Promise<ApiKeyView[]> {
  const ws = (await withKvRetry(() => deps.kv.get<Workspace>(keys.workspace(workspaceId)))).value;
  if (!ws) throw errors.notFound("Workspace not found.");
  const cap = planOf(ws.plan).maxActiveKeys;
  let activeSeen = 0;
  return (await listApiKeyRecords(deps, workspaceId)).map((k) => {
    const over = !k.revoked && ++activeSeen > cap;
    return toView(k, over);
  });
}

function toView(k: ApiKey, overLimit: boolean): ApiKeyView {
  return {
    id: k.id,
    name: k.name,
    type: k.type,
    scopes: k.scopes,
    prefix: k.prefix,
    created_at: k.created_at,
    last_used_at: k.last_used_at,
    revoked: k.revoked,
    over_limit: overLimit,
  };
}
