/**
 * Attaching uploaded files to a submission: every file value resolves to its verified
 * grant, and a rider marks the grant attached inside the submission's own commit.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors, type FieldError } from "@/lib/errors.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import { type Field, type Form, isFileType } from "@/lib/schemas.ts";
import type { Rider } from "@/lib/submissions/types.ts";
import { verifyUpload } from "./files.ts";
import { fileError, fileRefOf, isUploadPath, type UploadGrant } from "./grants.ts";

/**
 * Files one submission may attach: each is one check in the commit, which also holds the
 * sequence, the idempotency record, the rate limit and a spent CAPTCHA token (10 at most).
 */
export const MAX_FILES_PER_SUBMISSION = 6;

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

/** Marks a verified grant attached to the submission, inside the submission's commit. */
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
      // Two submissions of one group commit naming the same file would both pass the check
      // on the unchanged entry: the paths an operation already attaches are kept per process.
      const attaching = deps.inflight.attaching;
      const taken = attaching.get(op) ?? new Set<string>();
      if (taken.has(path)) {
        throw errors.validation([
          fileError(field, "This file is already attached to another submission."),
        ]);
      }
      taken.add(path);
      attaching.set(op, taken);
      // The index entry stays: once the URL expired, cleanup clears `incoming/` of an
      // attached grant, where a re-PUT to the still-valid S3 URL would otherwise linger.
      op.check(entry)
        .set(entry.key, { ...g, state: "attached", submission_id: submissionId, mode });
    },
  };
}
