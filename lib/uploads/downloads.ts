/**
 * Signed downloads of attached files for the Server Data API.
 * @module
 */
import type { KeyAuth } from "@/lib/keys/types.ts";
import { requireScope } from "@/lib/keys/auth.ts";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { getForm } from "@/lib/forms/forms.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { Submission } from "@/lib/schemas.ts";
import { fileKey, isUploadPath, type UploadGrant } from "./grants.ts";

/** Download links are valid this long. */
export const DOWNLOAD_TTL_SEC = 5 * 60;

/**
 * GET /server/forms/:id/files/download: a short-lived link to a file that a submission
 * of this form, in the key's workspace and mode, references; anything else is 404.
 */
export async function signFileDownload(
  deps: Deps,
  auth: KeyAuth,
  formId: string,
  path: string | undefined,
): Promise<{ url: string; expires_at: string }> {
  requireScope(auth, "read");
  const notFound = () => errors.notFound("File not found.");
  const form = await getForm(deps, formId);
  if (!form || form.workspace_id !== auth.workspace.id) throw errors.formNotFound();
  if (!path) throw errors.badRequest("Missing 'path' query parameter.");
  if (!isUploadPath(path)) throw notFound();
  const g = (await withKvRetry(() => deps.kv.get<UploadGrant>(keys.uploadGrant(path)))).value;
  if (
    !g || g.state !== "attached" || g.form_id !== form.id || g.mode !== auth.mode ||
    !g.submission_id
  ) throw notFound();
  const sub =
    (await withKvRetry(() => deps.kv.get<Submission>(keys.submission(form.id, g.submission_id!))))
      .value;
  if (!sub || sub.workspace_id !== auth.workspace.id || !sub.files?.includes(path)) {
    throw notFound();
  }
  const signed = await deps.storage.signDownload(fileKey(path), {
    filename: g.original_filename,
    contentType: g.mime_type ?? "application/octet-stream",
    ttlSec: DOWNLOAD_TTL_SEC,
  });
  return { url: signed.url, expires_at: new Date(signed.expiresAt).toISOString() };
}
