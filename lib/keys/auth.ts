/**
 * Authenticating an API key (`Authorization: Bearer fw_...`) and checking its scopes; an
 * authenticated key is kept a few seconds in the process's key cache.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { sha256Hex } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { allowsKeys } from "@/lib/workspaces/plans.ts";
import type { ApiKey, Scope, Workspace } from "@/lib/schemas.ts";
import { isWellFormedKey } from "./format.ts";
import type { CachedKey, KeyAuth, KeyPointer } from "./types.ts";

/** `last_used_at` is written at most this often per key. */
const LAST_USED_INTERVAL_MS = 60_000;

/**
 * Authenticates an `Authorization` header value. Unknown, malformed, revoked keys and keys
 * of missing or suspended workspaces are all 401 `Invalid API key.`; a workspace below
 * Starter is 403 `plan_required`. The workspace is read on every call unless
 * `callerChecksWorkspace`: then a cached key comes with its workspace as last read, and
 * the caller reads it again in its own read and passes it to checkKeyWorkspace (the
 * submit path, which so makes one KV read instead of two).
 */
export async function authenticateKey(
  deps: Pick<Deps, "kv" | "now" | "reads"> & Partial<Pick<Deps, "keyCache">>,
  header: string,
  opts: { callerChecksWorkspace?: boolean } = {},
): Promise<KeyAuth> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m || !isWellFormedKey(m[1])) throw errors.invalidApiKey();
  const hash = await sha256Hex(m[1]);
  const cached = deps.keyCache?.get(hash);
  let entry: Deno.KvEntryMaybe<ApiKey>;
  let workspace: Workspace | null;
  if (cached) {
    // The key record may be a few seconds old; the workspace (plan, suspension) never is.
    entry = cached.entry;
    workspace = opts.callerChecksWorkspace
      ? cached.workspace
      : (await deps.reads.get<Workspace>(keys.workspace(cached.entry.value.workspace_id))).value;
  } else {
    const pointer = (await deps.reads.get<KeyPointer>(keys.apiKeyByHash(hash))).value;
    if (!pointer) throw errors.invalidApiKey();
    // The pointer names the workspace too, so the key and its workspace come in one read.
    const [keyEntry, wsEntry] = await deps.reads.getMany<[ApiKey, Workspace]>([
      keys.apiKey(pointer.id),
      keys.workspace(pointer.workspace_id),
    ]);
    entry = keyEntry;
    workspace = wsEntry.value;
  }
  const key = entry.value;
  if (!key || key.revoked || key.hash !== hash) {
    deps.keyCache?.delete(hash);
    throw errors.invalidApiKey();
  }
  const checked = checkKeyWorkspace(workspace);
  const kept: CachedKey = cached
    ? { ...cached, workspace: checked }
    : { entry: entry as Deno.KvEntry<ApiKey>, workspace: checked, usedAt: usedAtOf(key) };
  // Set only on a miss: re-setting would renew the entry and keep a revoked key alive.
  if (!cached) deps.keyCache?.set(hash, kept);
  await touchLastUsed(deps, kept);
  return { key, workspace: checked, mode: key.type };
}

/** When a key was last used, in epoch ms (0 when never). */
function usedAtOf(key: ApiKey): number {
  return key.last_used_at ? Date.parse(key.last_used_at) : 0;
}

/** A key's workspace, if it may use keys: missing or suspended is 401, below Starter 403. */
export function checkKeyWorkspace(workspace: Workspace | null): Workspace {
  if (!workspace || workspace.suspended) throw errors.invalidApiKey();
  if (!allowsKeys(workspace.plan)) throw errors.planRequired();
  return workspace;
}

/**
 * Records use at most once a minute per key. Awaited (a commit left running outlives the
 * request and races KV close), but it never fails the request: a lost race means another
 * request wrote it, and the check keeps a concurrent revoke from being overwritten.
 */
async function touchLastUsed(
  deps: Pick<Deps, "kv" | "now"> & Partial<Pick<Deps, "keyCache">>,
  { entry, workspace, usedAt }: CachedKey,
): Promise<void> {
  const now = deps.now();
  if (now - usedAt < LAST_USED_INTERVAL_MS) return;
  const next = { ...entry.value, last_used_at: new Date(now).toISOString() };
  try {
    const res = await deps.kv.atomic().check(entry).set(entry.key, next).commit();
    // Keep the cache in step so the next request does not try (and fail) the same write.
    if (res.ok) {
      deps.keyCache?.set(next.hash, {
        entry: { ...entry, value: next, versionstamp: res.versionstamp },
        workspace,
        usedAt: now,
      });
    } else deps.keyCache?.delete(next.hash);
  } catch {
    // Lock contention on a shared KV file: a later request writes it instead.
  }
}

/** Throws 403 `insufficient_scope` unless the key has `scope` (`admin` implies `read`). */
export function requireScope(auth: KeyAuth, scope: Scope): void {
  const s = auth.key.scopes;
  const ok = s.includes(scope) || (scope === "read" && s.includes("admin"));
  if (!ok) throw errors.insufficientScope(scope);
}

/** Who a key-authenticated call is, for the audit log: `key:<prefix>`. */
export function keyActor(auth: KeyAuth): string {
  return `key:${auth.key.prefix}`;
}
