/**
 * After the PUT: verifying an upload's stored bytes once, moving good bytes to their final
 * key and counting them against the workspace's storage.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, u64Value, withKvRetry } from "@/lib/kv/kv.ts";
import { inspectBytes, type Inspection } from "./checks.ts";
import {
  fileKey,
  incomingKey,
  storageCap,
  storageFullMessage,
  type UploadGrant,
} from "./grants.ts";
import { getWorkspace } from "@/lib/workspaces/workspaces.ts";

/** Bytes read from the start of a file to inspect it (magic bytes, text rule, markers). */
export const HEAD_BYTES = 256 * 1024;

/**
 * Verifies an uploaded object once: size equal to the declaration, real type allowed for
 * the field, room left in the workspace's storage. Good bytes move to their final key
 * (only the version inspected) and their size is added to `storage_used` in the commit
 * that marks the grant verified (checked against the counter, so concurrent verifications
 * cannot pass the cap together); bad bytes, or bytes that would pass the cap, are deleted
 * and the grant is marked rejected with the reason. A grant with nothing uploaded yet is
 * returned unchanged.
 */
export async function verifyUpload(
  deps: Deps,
  entry: Deno.KvEntry<UploadGrant>,
): Promise<UploadGrant> {
  const g = entry.value;
  if ((g.state !== "pending" && g.state !== "uploading") || deps.now() >= g.due_at) return g;
  const incoming = incomingKey(g.path);
  const info = await deps.storage.head(incoming);
  if (!info) return g;
  // Grants from before verification counted (no `counted`) reserved their bytes already.
  const counts = g.counted === false;
  const workspace = counts ? await getWorkspace(deps, g.workspace_id) : null;
  const cap = workspace ? storageCap(workspace) : 0;
  const full = workspace ? storageFullMessage(workspace) : "The workspace no longer exists.";
  const usedKey = keys.storageUsed(g.workspace_id);
  let verdict: Inspection;
  if (info.size !== g.size_bytes) {
    verdict = {
      ok: false,
      reason: `The upload has ${info.size} bytes; ${g.size_bytes} were declared.`,
    };
  } else {
    const head = await deps.storage.readStart(
      incoming,
      Math.min(g.size_bytes, HEAD_BYTES),
      info.etag,
    );
    verdict = await inspectBytes(head, g.size_bytes <= HEAD_BYTES, g.declared_type, g.allowed);
  }
  if (verdict.ok && counts) {
    // Cheap early refusal; the commit below decides for real.
    const used = await withKvRetry(() => deps.kv.get(usedKey));
    if (u64Value(used.value) + g.size_bytes > cap) verdict = { ok: false, reason: full };
  }
  try {
    if (verdict.ok) await deps.storage.promote(incoming, fileKey(g.path), info.etag);
    else await deps.storage.delete(incoming);
  } catch (err) {
    // A concurrent verification of the same grant may have moved the object first.
    const again = await withKvRetry(() => deps.kv.get<UploadGrant>(entry.key));
    if (again.value && again.value.state !== g.state) return again.value;
    throw err;
  }
  const { claimed_until: _, ...rest } = g;
  const next = await commitWithRetry(deps.kv, async (op) => {
    const cur = await deps.kv.get<UploadGrant>(entry.key);
    if (cur.versionstamp !== entry.versionstamp) return null; // someone else decided
    if (!verdict.ok) {
      op.check(cur).set(entry.key, { ...rest, state: "rejected", reason: verdict.reason });
      return { ...rest, state: "rejected", reason: verdict.reason } as UploadGrant;
    }
    const verified: UploadGrant = { ...rest, state: "verified", mime_type: verdict.mimeType };
    if (!counts) {
      op.check(cur).set(entry.key, verified);
      return verified;
    }
    const used = await deps.kv.get(usedKey);
    const total = u64Value(used.value) + g.size_bytes;
    if (total > cap) {
      const refused: UploadGrant = { ...rest, state: "rejected", reason: full };
      op.check(cur).set(entry.key, refused);
      return refused;
    }
    op.check(cur, used)
      .set(entry.key, { ...verified, counted: true })
      .set(usedKey, new Deno.KvU64(BigInt(total)));
    return { ...verified, counted: true };
  });
  if (next) {
    // Promoted, then refused for quota: the file must not stay behind uncounted.
    if (verdict.ok && next.state === "rejected") await deps.storage.delete(fileKey(g.path));
    return next;
  }
  const fresh = (await withKvRetry(() => deps.kv.get<UploadGrant>(entry.key))).value;
  if (verdict.ok && fresh?.state !== "verified" && fresh?.state !== "attached") {
    // Cleanup removed the grant meanwhile: do not leave our copy behind as an orphan.
    await deps.storage.delete(fileKey(g.path));
  }
  return fresh ?? { ...g, state: "expired" };
}
