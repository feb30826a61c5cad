/**
 * Cleanup of upload grants: the delayed `cleanup_upload` job per grant, and
 * `sweepUploads`, the periodic safety net over the `upload_pending` index. A grant is
 * looked at once its upload URL has expired (plus a grace period): never uploaded or
 * refused, it is removed then; verified, it waits for its submission until `due_at`, then
 * goes. Removal first marks the grant `expired` in a checked commit (after that no
 * submission can attach it), then deletes its objects, then the record, its index entry
 * and (when attached, so counted) its bytes from `storage_used` in one commit. A file
 * attached to an existing submission is never touched; only a stray re-PUT under
 * `incoming/` is cleared. One attached to a deleted submission is removed here too (the
 * delete writes an index entry for it), in case `delete_files` never ran.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, u64Value, withKvRetry } from "@/lib/kv/kv.ts";
import type { Job } from "./queue.ts";
import { verifyUpload } from "@/lib/uploads/files.ts";
import {
  fileKey,
  incomingKey,
  isUploadPath,
  UPLOAD_GRACE_MS,
  type UploadGrant,
} from "@/lib/uploads/grants.ts";
import { leavePool, sweepPools } from "@/lib/uploads/pool.ts";

/** Grants looked at concurrently by a sweep. */
const SWEEP_CONCURRENCY = 8;

/** Handler of `cleanup_upload`: looks at one grant (idempotent; early deliveries do nothing). */
export async function cleanupUpload(
  deps: Deps,
  job: Extract<Job, { type: "cleanup_upload" }>,
): Promise<void> {
  if (isUploadPath(job.path)) await reviewGrant(deps, job.path);
}

/**
 * Looks at every grant whose check time has passed (at most `limit`) and deletes the
 * pending-pool counters that stopped counting; returns how many grants it removed. Safe to
 * run beside the jobs and on several instances at once.
 */
export async function sweepUploads(deps: Deps, limit = 10_000): Promise<number> {
  await sweepPools(deps);
  const due: Deno.KvKey[] = [];
  const iter = deps.kv.list({
    prefix: keys.uploadsPending(),
    end: [...keys.uploadsPending(), deps.now()],
  }, { limit });
  for await (const e of iter) due.push(e.key);
  let removed = 0;
  for (let i = 0; i < due.length; i += SWEEP_CONCURRENCY) {
    await Promise.all(
      due.slice(i, i + SWEEP_CONCURRENCY).map(async (key) => {
        if (await reviewGrant(deps, String(key[2]), key)) removed++;
      }),
    );
  }
  return removed;
}

/**
 * Decides one grant's fate now; true when it was removed. `indexKey` is the index entry
 * that led here (dropped when it turns out stale).
 */
export async function reviewGrant(
  deps: Deps,
  path: string,
  indexKey?: Deno.KvKey,
): Promise<boolean> {
  const entry = await withKvRetry(() => deps.kv.get<UploadGrant>(keys.uploadGrant(path)));
  const g = entry.value;
  const now = deps.now();
  if (!g) {
    // No record: any object left is an orphan of an interrupted removal.
    await deleteObjects(deps, path);
    if (indexKey) await withKvRetry(() => deps.kv.delete(indexKey));
    return false;
  }
  if (indexKey && indexKey[1] !== g.check_at) {
    await withKvRetry(() => deps.kv.delete(indexKey)); // left by an older schedule
  }
  if (now < g.check_at && now < g.due_at) return false;
  if (g.state === "attached") {
    if (!await submissionExists(deps, g)) {
      // Its submission was deleted and `delete_files` has not (yet) removed the file.
      await deleteObjects(deps, path);
      return await dropGrant(deps, path, "attached");
    }
    // The URL has expired: `incoming/` can only hold a late re-PUT, never the file.
    await deps.storage.delete(incomingKey(path));
    await withKvRetry(() => deps.kv.delete(keys.uploadPending(g.check_at, path)));
    return false;
  }
  if (now < g.due_at) {
    if (g.state === "uploading" && (g.claimed_until ?? 0) > now) {
      await reschedule(
        deps,
        entry as Deno.KvEntry<UploadGrant>,
        g.claimed_until! + UPLOAD_GRACE_MS,
      );
      return false;
    }
    // S3 uploads are verified here if no submission did it yet.
    const seen = g.state === "pending" || g.state === "uploading"
      ? await verifyUpload(deps, entry as Deno.KvEntry<UploadGrant>)
      : g;
    if (seen.state === "verified" || seen.state === "attached") {
      const fresh = await withKvRetry(() => deps.kv.get<UploadGrant>(entry.key));
      if (fresh.value?.state === "verified") {
        await reschedule(deps, fresh as Deno.KvEntry<UploadGrant>, fresh.value.due_at);
      }
      return false;
    }
  }
  return await removeGrant(deps, path);
}

/** Moves a grant's next look to `at`, with a job for then, in one checked commit. */
async function reschedule(deps: Deps, entry: Deno.KvEntry<UploadGrant>, at: number) {
  const g = entry.value;
  if (g.check_at === at) return;
  const op = deps.kv.atomic()
    .check(entry)
    .set(entry.key, { ...g, check_at: at })
    .delete(keys.uploadPending(g.check_at, g.path))
    .set(keys.uploadPending(at, g.path), true);
  deps.jobs.enqueue(op, { type: "cleanup_upload", path: g.path }, {
    delay: Math.max(0, at - deps.now()) + 1000,
  });
  // A lost race means someone else changed the grant; the next look decides again.
  await withKvRetry(() => op.commit());
}

/** Removes an unattached grant that is no longer usable; true when it was removed. */
async function removeGrant(deps: Deps, path: string): Promise<boolean> {
  const key = keys.uploadGrant(path);
  const marked = await commitWithRetry(deps.kv, async (op) => {
    const entry = await deps.kv.get<UploadGrant>(key);
    const g = entry.value;
    if (!g || !removable(g, deps.now())) return null;
    if (g.state !== "expired") op.check(entry).set(key, { ...g, state: "expired" });
    return g;
  });
  if (!marked) return false;
  await deleteObjects(deps, path);
  return await dropGrant(deps, path, "expired");
}

/** Past its due time, or past its upload window without verified bytes, and unattached. */
function removable(g: UploadGrant, now: number): boolean {
  if (g.state === "attached") return false;
  if (g.state === "expired" || now >= g.due_at) return true;
  if (now < g.check_at || g.state === "verified") return false;
  return g.state !== "uploading" || (g.claimed_until ?? 0) <= now;
}

/**
 * Whether the submission an attached grant belongs to still exists. Attaching and
 * writing the submission are one commit, so "attached but no submission" means deleted.
 */
export async function submissionExists(deps: Deps, g: UploadGrant): Promise<boolean> {
  if (!g.submission_id) return true; // cannot tell: never remove on a guess
  const sub = await withKvRetry(() => deps.kv.get(keys.submission(g.form_id, g.submission_id!)));
  return sub.value !== null;
}

/** Deletes both objects a path may have (unverified upload and verified file). */
export async function deleteObjects(deps: Deps, path: string): Promise<void> {
  await deps.storage.delete(incomingKey(path));
  await deps.storage.delete(fileKey(path));
}

/**
 * Deletes a grant record in state `state`, its index entry, and, when its bytes were
 * counted (verified), subtracts them from the workspace's storage counter (never below
 * zero), in one checked commit.
 */
export async function dropGrant(
  deps: Deps,
  path: string,
  state: UploadGrant["state"],
): Promise<boolean> {
  const key = keys.uploadGrant(path);
  const done = await commitWithRetry(deps.kv, async (op) => {
    const entry = await deps.kv.get<UploadGrant>(key);
    const g = entry.value;
    if (!g || g.state !== state) return null;
    op.check(entry).delete(key).delete(keys.uploadPending(g.check_at, path));
    // An attached grant left its pool when it was attached.
    if (g.state !== "attached") leavePool(op, g, deps.now());
    if (g.counted) {
      const usedKey = keys.storageUsed(g.workspace_id);
      const used = await deps.kv.get(usedKey);
      op.check(used).set(
        usedKey,
        new Deno.KvU64(BigInt(Math.max(0, u64Value(used.value) - g.size_bytes))),
      );
    }
    return true;
  });
  return done === true;
}
