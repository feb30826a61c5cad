/**
 * API keys: `fw_live_` / `fw_test_` + 32 base62 characters of randomness (190 bits) +
 * a 6-character base62 CRC32 checksum, so a scanner rejects a mistyped or fake key with
 * no lookup. Stored only as a SHA-256 digest; the raw value is returned once.
 * @module
 */
import { assertNotSuspended } from "@/lib/workspaces/suspension.ts";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { newId, randomBase62, sha256Hex, toBase62 } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import { allowsKeys, planOf } from "@/lib/workspaces/plans.ts";
import { type ApiKey, type Scope, SCOPES, type Workspace } from "@/lib/schemas.ts";

const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^fw_(live|test)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;
/** `last_used_at` is written at most this often per key. */
const LAST_USED_INTERVAL_MS = 60_000;
/** Default scopes of a new key (SPEC part 5). */
export const DEFAULT_SCOPES: Scope[] = ["submit", "read"];

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC32 of ASCII text (a key's characters are ASCII by KEY_PATTERN: no encoding step). */
function crc32(text: string): number {
  let c = 0xffffffff;
  for (let i = 0; i < text.length; i++) {
    c = CRC_TABLE[(c ^ text.charCodeAt(i)) & 0xff] ^ (c >>> 8);
  }
  return (c ^ 0xffffffff) >>> 0;
}

function checksum(type: string, random: string): string {
  return toBase62(BigInt(crc32(`fw_${type}_${random}`)), CHECKSUM_LENGTH);
}

/** Whether a string has the shape and checksum of a Formwell key (no lookup). */
export function isWellFormedKey(raw: string): boolean {
  const m = KEY_PATTERN.exec(raw);
  return m !== null && checksum(m[1], m[2]) === m[3];
}

/**
 * The displayable prefix of a raw key: type prefix plus four characters. Only four, so
 * the 28 never-shown characters still carry over 160 bits (base62: 5.95 bits each).
 */
export function keyPrefix(raw: string): string {
  return raw.slice(0, "fw_live_".length + 4);
}

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
  for (let attempt = 0; attempt < 10; attempt++) {
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
        `The ${ws.value.plan} plan allows ${cap} active API keys. Revoke one or upgrade the plan.`,
      );
    }
    const res = await withKvRetry(() =>
      deps.kv.atomic()
        .check(ws)
        .check(version)
        .check({ key: keys.apiKeyByHash(record.hash), versionstamp: null })
        .set(keys.apiKeysVersion(input.workspaceId), (version.value ?? 0) + 1)
        .set(keys.apiKey(record.id), record)
        .set(
          keys.apiKeyByHash(record.hash),
          {
            id: record.id,
            workspace_id: record.workspace_id,
          } satisfies KeyPointer,
        )
        .set(keys.apiKeyByWorkspace(input.workspaceId, record.id), true)
        .commit()
    );
    if (res.ok) return { ...toView(record, false), key: raw };
  }
  throw new Error("key create kept conflicting");
}

/** Revokes a key: at once on this instance, on others within the key cache's few seconds. */
export async function revokeApiKey(
  deps: Pick<Deps, "kv" | "now"> & Partial<Pick<Deps, "keyCache">>,
  keyId: string,
  workspaceId?: string,
): Promise<ApiKeyView> {
  for (let attempt = 0; attempt < 10; attempt++) {
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
    const res = await withKvRetry(() =>
      deps.kv.atomic().check(entry).check(version)
        .set(entry.key, next)
        .set(keys.apiKeysVersion(next.workspace_id), (version.value ?? 0) + 1)
        .commit()
    );
    if (res.ok) {
      // Effective on this instance's next request; others within the cache TTL.
      deps.keyCache?.delete(next.hash);
      return toView(next, false);
    }
  }
  throw new Error("key revoke kept conflicting");
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

/** The value of the by-hash index: the key's id and its workspace's. */
interface KeyPointer {
  id: string;
  workspace_id: string;
}

/** The caller a valid key authenticates. */
export interface KeyAuth {
  key: ApiKey;
  workspace: Workspace;
  mode: "live" | "test";
}

/** An authenticated key kept in the key cache, with its workspace as last read. */
export interface CachedKey {
  entry: Deno.KvEntry<ApiKey>;
  workspace: Workspace;
}

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
  const kept = { entry: entry as Deno.KvEntry<ApiKey>, workspace: checked };
  // Set only on a miss: re-setting would renew the entry and keep a revoked key alive.
  if (!cached) deps.keyCache?.set(hash, kept);
  await touchLastUsed(deps, kept);
  return { key, workspace: checked, mode: key.type };
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
  { entry, workspace }: CachedKey,
): Promise<void> {
  const last = entry.value.last_used_at ? Date.parse(entry.value.last_used_at) : 0;
  const now = deps.now();
  if (now - last < LAST_USED_INTERVAL_MS) return;
  const next = { ...entry.value, last_used_at: new Date(now).toISOString() };
  try {
    const res = await deps.kv.atomic().check(entry).set(entry.key, next).commit();
    // Keep the cache in step so the next request does not try (and fail) the same write.
    if (res.ok) {
      deps.keyCache?.set(next.hash, {
        entry: { ...entry, value: next, versionstamp: res.versionstamp },
        workspace,
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
