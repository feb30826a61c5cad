/**
 * After the PUT: verifying stored bytes, attaching verified files to a submission inside
 * its commit, and signed downloads for the Server Data API.
 * @module
 */
import type { KeyAuth } from "@/lib/keys/api_keys.ts";
import { requireScope } from "@/lib/keys/api_keys.ts";
import type { Deps } from "@/lib/deps.ts";
import { errors, type FieldError } from "@/lib/errors.ts";
import { getForm } from "@/lib/forms/forms.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { commitWithRetry, u64Value, withKvRetry } from "@/lib/kv/kv.ts";
import type { Field, Form, Submission } from "@/lib/schemas.ts";
import { isFileType } from "@/lib/schemas.ts";
import type { Rider } from "@/lib/submissions/writer.ts";
import { inspectBytes, type Inspection, MARKUP_REASON, streamHasActiveContent } from "./checks.ts";
import {
  fileError,
  fileKey,
  fileRefOf,
  incomingKey,
  isUploadPath,
  storageCap,
  storageFullMessage,
  type UploadGrant,
} from "./grants.ts";
import { getWorkspace } from "@/lib/workspaces/workspaces.ts";

/**
 * Bytes read from the start of a file to inspect it (magic bytes, text rule, markers); the
 * markers are also looked for in the rest of a longer file, streamed.
 */
export const HEAD_BYTES = 256 * 1024;
/** Download links are valid this long. */
export const DOWNLOAD_TTL_SEC = 5 * 60;
/**
 * Files one submission may attach: each is one check in the commit, which also holds the
 * sequence, the idempotency record, the rate limit and a spent CAPTCHA token (10 at most).
 */
export const MAX_FILES_PER_SUBMISSION = 6;

/**
 * Verifies an uploaded object once: size equal to the declaration, real type allowed for
 * the field, no markup anywhere. Good bytes move to their final key (only the version
 * inspected) and the grant is marked verified; bad bytes are deleted and the grant is
 * marked rejected with the reason. Verified bytes are not charged to the workspace yet:
 * that happens when a submission attaches them (see attachRider). A grant with nothing
 * uploaded yet is returned unchanged.
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
    // Past the head, markup is looked for in every byte as it streams.
    if (
      verdict.ok && g.size_bytes > HEAD_BYTES &&
      await streamHasActiveContent(await deps.storage.readStream(incoming, info.etag))
    ) {
      verdict = { ok: false, reason: MARKUP_REASON };
    }
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
    op.check(cur).set(entry.key, verified);
    return verified;
  });
  if (next) return next;
  const fresh = (await withKvRetry(() => deps.kv.get<UploadGrant>(entry.key))).value;
  if (verdict.ok && fresh?.state !== "verified" && fresh?.state !== "attached") {
    // Cleanup removed the grant meanwhile: do not leave our copy behind as an orphan.
    await deps.storage.delete(fileKey(g.path));
  }
  return fresh ?? { ...g, state: "expired" };
}

/** What a submission needs to attach its files: the paths and one rider per file. */
export interface Attachments {
  files: string[];
  riders: Rider[];
}

/**
 * Resolves every file-like value of a validated submission to its verified grant
 * (verifying S3 uploads now), replaces the client's reference with the stored one, and
 * returns the riders that attach the grants in the submission's own commit.
 * Any problem is a 422 with items of type `file`.
 */
export async function prepareAttachments(
  deps: Deps,
  form: Form,
  mode: Mode,
  values: Record<string, unknown>,
): Promise<Attachments> {
  const fields = form.fields.filter((f) => isFileType(f.type) && values[f.name] !== undefined);
  if (!fields.length) return { files: [], riders: [] };
  if (fields.length > MAX_FILES_PER_SUBMISSION) {
    throw errors.validation(
      fields.slice(MAX_FILES_PER_SUBMISSION).map((f) =>
        fileError(f, `A submission may attach at most ${MAX_FILES_PER_SUBMISSION} files.`)
      ),
    );
  }
  const problems: FieldError[] = [];
  const out: Attachments = { files: [], riders: [] };
  const seen = new Set<string>();
  for (const field of fields) {
    const path = (values[field.name] as { path?: unknown }).path;
    const result = await resolveGrant(deps, form, field, path);
    if (typeof result === "string" || seen.has(result.path)) {
      problems.push(fileError(field, typeof result === "string" ? result : "Duplicate file."));
      continue;
    }
    seen.add(result.path);
    values[field.name] = fileRefOf(result);
    out.files.push(result.path);
    out.riders.push(attachRider(deps, form, field, result.path, mode));
  }
  if (problems.length) throw errors.validation(problems);
  return out;
}

const GONE = "The file was not found or has expired. Upload it again.";

async function resolveGrant(
  deps: Deps,
  form: Form,
  field: Field,
  path: unknown,
): Promise<UploadGrant | string> {
  if (!isUploadPath(path)) return GONE;
  const entry = await withKvRetry(() => deps.kv.get<UploadGrant>(keys.uploadGrant(path)));
  let g = entry.value;
  if (!g || g.form_id !== form.id || g.field_id !== field.id) return GONE;
  if (g.state === "attached") return "This file is already attached to another submission.";
  if (g.state === "expired" || deps.now() >= g.due_at) return GONE;
  if (g.state === "pending" || g.state === "uploading") {
    try {
      g = await verifyUpload(deps, entry as Deno.KvEntry<UploadGrant>);
    } catch (err) {
      // Storage unreachable: the client may retry; a 500 would suggest a bug.
      console.error(
        JSON.stringify({ level: "error", msg: "upload verification failed", err: String(err) }),
      );
      throw errors.unavailable();
    }
  }
  if (g.state === "rejected") return g.reason ?? "The file was refused.";
  if (g.state !== "verified") return "The file has not been uploaded yet.";
  return g;
}

/**
 * Paths already attached by an operation being built: two submissions of one group commit
 * naming the same file would both pass the check on the unchanged entry.
 */
const attaching = new WeakMap<Deno.AtomicOperation, Set<string>>();

/** Bytes charged to each workspace by an operation being built (group commits). */
const charging = new WeakMap<Deno.AtomicOperation, Map<string, number>>();

/**
 * Marks a verified grant attached to the submission, inside the submission's commit: its
 * bytes are charged to the workspace's `storage_used` there (refused with 422 when they
 * would pass the plan's storage) and leave the client's pending pool.
 */
function attachRider(deps: Deps, form: Form, field: Field, path: string, mode: Mode): Rider {
  return {
    checks: 1,
    apply: async (op, submissionId) => {
      const entry = await withKvRetry(() => deps.kv.get<UploadGrant>(keys.uploadGrant(path)));
      const g = entry.value;
      if (!g || g.state !== "verified" || g.form_id !== form.id || g.field_id !== field.id) {
        throw errors.validation([
          fileError(
            field,
            g?.state === "attached" ? "This file is already attached to another submission." : GONE,
          ),
        ]);
      }
      if (deps.now() >= g.due_at) throw errors.validation([fileError(field, GONE)]);
      const taken = attaching.get(op) ?? new Set<string>();
      if (taken.has(path)) {
        throw errors.validation([
          fileError(field, "This file is already attached to another submission."),
        ]);
      }
      // Grants verified before charging moved to attach (`counted` true or absent) are paid.
      const charge = g.counted === false ? g.size_bytes : 0;
      const tally = charging.get(op) ?? new Map<string, number>();
      if (charge) {
        const usedKey = keys.storageUsed(g.workspace_id);
        const [used, workspace] = await Promise.all([
          withKvRetry(() => deps.kv.get(usedKey)),
          getWorkspace(deps, g.workspace_id),
        ]);
        const before = u64Value(used.value) + (tally.get(g.workspace_id) ?? 0);
        if (!workspace || before + charge > storageCap(workspace)) {
          const full = workspace ? storageFullMessage(workspace) : GONE;
          throw errors.validation([fileError(field, full)]);
        }
        tally.set(g.workspace_id, (tally.get(g.workspace_id) ?? 0) + charge);
        charging.set(op, tally);
        // A sum, not a set: other submissions of this commit add their own files.
        op.sum(usedKey, BigInt(charge));
        if (g.pending_identity) {
          op.delete(keys.uploadPendingByClient(g.workspace_id, g.pending_identity, g.path));
        }
      }
      taken.add(path);
      attaching.set(op, taken);
      // The index entry stays: once the URL expired, cleanup clears `incoming/` of an
      // attached grant, where a re-PUT to the still-valid S3 URL would otherwise linger.
      op.check(entry).set(entry.key, {
        ...g,
        state: "attached",
        submission_id: submissionId,
        mode,
        counted: true,
      });
    },
  };
}

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
