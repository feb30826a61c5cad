/**
 * Files the service receives itself (the no-JS multipart path): each goes through the
 * signed-upload flow's grant checks and verification, without a signed URL.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { requireLiveForm } from "@/lib/forms/forms.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { Field, FileRef, Form } from "@/lib/schemas.ts";
import { verifyUpload } from "./files.ts";
import { fileRefOf, incomingKey, issueGrant, rejectionError, type UploadGrant } from "./grants.ts";

/**
 * Stores a file the service received itself (the no-JS multipart path) through the same
 * checks as a signed upload; returns the verified reference to put in the submission's
 * data, or throws the 422 the two-step flow would give.
 */
export async function acceptDirectUpload(
  deps: Deps,
  form: Form,
  field: Field,
  fileName: string,
  contentType: string,
  bytes: Uint8Array,
): Promise<FileRef> {
  const { workspace } = await requireLiveForm(deps, form.id);
  const grant = await issueGrant(deps, form, workspace, field, {
    fileName,
    contentType,
    size: bytes.byteLength,
  });
  await deps.storage.write(incomingKey(grant.path), bytes, grant.declared_type);
  const entry = await withKvRetry(() => deps.kv.get<UploadGrant>(keys.uploadGrant(grant.path)));
  const verified = await verifyUpload(deps, entry as Deno.KvEntry<UploadGrant>);
  if (verified.state !== "verified") {
    throw errors.validation([rejectionError(field, verified)]);
  }
  return fileRefOf(verified);
}
