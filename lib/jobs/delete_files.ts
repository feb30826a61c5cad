/**
 * `delete_files`: removes the files of deleted submissions (enqueued in the commit that
 * deletes them). Idempotent, and it never removes a file whose submission still exists.
 * Should it never succeed, the cleanup sweep does the same work from the `upload_pending`
 * entries that delete wrote (cleanup_upload.ts).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { Job } from "./queue.ts";
import { isUploadPath, type UploadGrant } from "@/lib/uploads/grants.ts";
import { deleteObjects, dropGrant, submissionExists } from "./cleanup_upload.ts";

/** Handler of `delete_files`. */
export async function deleteFiles(
  deps: Deps,
  job: Extract<Job, { type: "delete_files" }>,
): Promise<void> {
  for (const path of job.paths) {
    if (!isUploadPath(path)) continue;
    const g = (await withKvRetry(() => deps.kv.get<UploadGrant>(keys.uploadGrant(path)))).value;
    if (g?.state !== "attached") {
      // Unattached grants belong to cleanup; a missing record means only orphans remain.
      if (!g) await deleteObjects(deps, path);
      continue;
    }
    if (await submissionExists(deps, g)) continue;
    await deleteObjects(deps, path);
    await dropGrant(deps, path, "attached");
  }
}
