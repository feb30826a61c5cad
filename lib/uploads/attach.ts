/**
 * Attaching uploaded files to a submission: every file value resolves to its verified
 * grant, and a part marks the grant attached inside the submission's own commit.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors, type FieldError } from "@/lib/errors.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { u64Value, withKvRetry } from "@/lib/kv/kv.ts";
import { type Field, type Form, isFileType } from "@/lib/schemas.ts";
import type { CommitPart } from "@/lib/submissions/types.ts";
import { verifyUpload } from "./files.ts";
import { leavePool } from "./pool.ts";
import {
  fileError,
  fileRefOf,
  isUploadPath,
  rejectionError,
  storageCap,
  storageFullMessage,
  type UploadGrant,
} from "./grants.ts";
import { getWorkspace } from "@/lib/workspaces/workspaces.ts";
import { logger } from "@/lib/observe/log.ts";

/**
 * Files one submission may attach: each is one check in the commit, which also holds the
 * sequence, the idempotency record, the rate limit and a spent CAPTCHA token (10 at most).
 */
export const MAX_FILES_PER_SUBMISSION = 6;

/** What a submission needs to attach its files: the paths and one part per file. */
export interface Attachments {
  files: string[];
  parts: CommitPart[];
}

/**
 * Resolves every file-like value of a validated submission to its verified grant
 * (verifying S3 uploads now), replaces the client's reference with the stored one, and
 * returns the parts that attach the grants in the submission's own commit.
 * Any problem is a 422 with items of type `file`.
 */
export async function prepareAttachments(
  deps: Deps,
  form: Form,
  mode: Mode,
  values: Record<string, unknown>,
): Promise<Attachments> {
  const fields = form.fields.filter((f) => isFileType(f.type) && values[f.name] !== undefined);
  if (!fields.length) return { files: [], parts: [] };
  if (fields.length > MAX_FILES_PER_SUBMISSION) {
    throw errors.validation(
      fields.slice(MAX_FILES_PER_SUBMISSION).map((f) =>
        fileError(f, `A submission may attach at most ${MAX_FILES_PER_SUBMISSION} files.`)
      ),
    );
  }
  const problems: FieldError[] = [];
  const out: Attachments = { files: [], parts: [] };
  const seen = new Set<string>();
  for (const field of fields) {
    const path = (values[field.name] as { path?: unknown }).path;
    const result = await resolveGrant(deps, form, field, path);
    if (typeof result === "string" || seen.has(result.path)) {
      problems.push(fileError(field, typeof result === "string" ? result : "Duplicate file."));
      continue;
    }
    if (result.state === "rejected") {
      problems.push(rejectionError(field, result));
      continue;
    }
    seen.add(result.path);
    values[field.name] = fileRefOf(result);
    out.files.push(result.path);
    out.parts.push(attachPart(deps, form, field, result.path, mode));
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
      if (err instanceof AppError) throw err; // scanner_unavailable
      // Storage unreachable: the client may retry; a 500 would suggest a bug.
      logger.error("upload verification failed", { err: String(err) });
      throw errors.unavailable();
    }
  }
  if (g.state === "rejected") return g;
  if (g.state !== "verified") return "The file has not been uploaded yet.";
  return g;
}

/**
 * Marks a verified grant attached to the submission, inside the submission's commit: its
 * bytes are charged to the workspace's `storage_used` there (refused with 422 when they
 * would pass the plan's storage) and leave the client's pending pool.
 */
function attachPart(deps: Deps, form: Form, field: Field, path: string, mode: Mode): CommitPart {
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
      await chargeStorage(deps, op, field, g);
      leavePool(op, g, deps.now());
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
 * Adds a grant's bytes to its workspace's `storage_used` in `op` (a sum: other submissions
 * of the commit add their own), refusing with 422 past the plan's storage. A counted grant was paid already.
 */
async function chargeStorage(
  deps: Deps,
  op: Deno.AtomicOperation,
  field: Field,
  g: UploadGrant,
): Promise<void> {
  if (g.counted) return;
  const tally = deps.inflight.charging.get(op) ?? new Map<string, number>();
  const usedKey = keys.storageUsed(g.workspace_id);
  const [used, workspace] = await Promise.all([
    withKvRetry(() => deps.kv.get(usedKey)),
    getWorkspace(deps, g.workspace_id),
  ]);
  const before = u64Value(used.value) + (tally.get(g.workspace_id) ?? 0);
  if (!workspace || before + g.size_bytes > storageCap(workspace)) {
    throw errors.validation([fileError(field, workspace ? storageFullMessage(workspace) : GONE)]);
  }
  tally.set(g.workspace_id, (tally.get(g.workspace_id) ?? 0) + g.size_bytes);
  deps.inflight.charging.set(op, tally);
  op.sum(usedKey, BigInt(g.size_bytes));
}
