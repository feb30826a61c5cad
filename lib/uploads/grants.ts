/**
 * Upload grants, step one of SPEC part 4's two-step upload: every check of the
 * upload-URL endpoint (file-like field, allowed types, field and plan size limits, room in
 * the workspace's storage), a server-generated path, and the grant kept in KV with its own
 * expiry and a delayed cleanup job. Bytes count against the workspace's storage only when a
 * submission attaches them (uploads/files.ts); until then they sit in the uploading client's
 * pending pool (uploads/pool.ts: 50 MB per client address per workspace, for about an hour),
 * so strangers' uploads can neither fill a workspace nor hold much of anything for long.
 * @module
 */
import { z } from "zod";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors, type FieldError } from "@/lib/errors.ts";
import { requireLiveForm } from "@/lib/forms/forms.ts";
import { newId, randomBase62 } from "@/lib/ids.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { MAX_VALUE_BYTES } from "@/lib/kv/batcher.ts";
import { u64Value, withKvRetry } from "@/lib/kv/kv.ts";
import { checkPool, joinPool, poolBucketOf, poolKeys } from "./pool.ts";
import { planOf } from "@/lib/workspaces/plans.ts";
import { ipIdentity } from "@/lib/ratelimit/rate_limit.ts";
import { type Field, type FileRef, type Form, isFileType, type Workspace } from "@/lib/schemas.ts";
import { sanitiseFileName } from "./checks.ts";
import { english } from "@/lib/rules/mod.ts";
import { allowedTypesOf, fileVerdicts, MB, normaliseType } from "@/lib/rules/files.ts";

/** Upload URLs (and local storage tokens) are valid this long. */
export const UPLOAD_URL_TTL_SEC = 15 * 60;
/** An unattached grant may be referenced this long; then cleanup removes it. */
export const GRANT_TTL_MS = 60 * 60 * 1000;
/**
 * After the upload URL expired, this long until cleanup first looks at a grant: one never
 * uploaded or refused is removed then, a verified one waits
 * for its submission until `due_at`.
 */
export const UPLOAD_GRACE_MS = 5 * 60 * 1000;

/** Lifecycle of a grant: pending -> (uploading ->) verified | rejected -> attached | expired. */
export type GrantState = "pending" | "uploading" | "verified" | "rejected" | "attached" | "expired";

/** An upload grant as stored under `keys.uploadGrant(path)`. */
export interface UploadGrant {
  /** The `uploadToken` returned to the client (bookkeeping id). */
  token: string;
  path: string;
  form_id: string;
  workspace_id: string;
  field_id: string;
  /** Allowed type patterns of the field when the grant was made. */
  allowed: string[];
  original_filename: string;
  declared_type: string;
  size_bytes: number;
  created_at: number;
  /** Attachable until then; cleanup removes an unattached grant afterwards. */
  due_at: number;
  /** When cleanup next looks at the grant (its `upload_pending` index entry). */
  check_at: number;
  state: GrantState;
  /** A local PUT in progress holds the grant until then. */
  claimed_until?: number;
  /** The verified real type. */
  mime_type?: string;
  /** Why verification refused the bytes. */
  reason?: string;
  /** Refused because the virus scanner found a signature in the bytes. */
  infected?: boolean;
  /**
   * Whether `size_bytes` is in the workspace's `storage_used` (set when attached; removal
   * subtracts only then).
   */
  counted: boolean;
  /** The client (rate-limit identity) whose pending pool holds the bytes until attached. */
  pending_identity?: string;
  /** The pool counter holding the bytes (uploads/pool.ts); absent on grants in no counter. */
  pool_bucket?: number;
  submission_id?: string;
  mode?: Mode;
}

/** The body of POST /forms/p/:id/upload-url. */
export const uploadUrlBodySchema = z.object({
  fieldId: z.string().min(1).max(64),
  fileName: z.string().min(1).max(1024),
  // Printable ASCII only: the value is signed into an HTTP header as sent.
  contentType: z.string().min(1).max(255).regex(/^[\x20-\x7e]+$/, "printable ASCII only"),
  sizeBytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
}).strict();

/** The 200 body of the upload-URL endpoint (SPEC "Upload grant"). */
export interface UploadUrlResponse {
  path: string;
  uploadUrl: string;
  uploadToken: string;
  storageToken?: string;
}

/** Paths look like `<form id>/<ulid><random>`: unguessable, never from a file name. */
const PATH = /^[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{1,80}$/;

/** Whether a client-sent path could be one of ours (keeps junk out of KV lookups). */
export function isUploadPath(path: unknown): path is string {
  return typeof path === "string" && PATH.test(path);
}

/** Object key of an upload before verification. */
export function incomingKey(path: string): string {
  return `incoming/${path}`;
}

/** Object key of a verified file. */
export function fileKey(path: string): string {
  return `files/${path}`;
}

/** The stored file reference of a verified grant (never the client's claims). */
export function fileRefOf(g: UploadGrant): FileRef {
  return {
    path: g.path,
    originalFilename: g.original_filename,
    mimeType: g.mime_type ?? g.declared_type,
    sizeBytes: g.size_bytes,
  };
}

/**
 * POST /api/v1/forms/p/:id/upload-url after the route's rate limit and body validation:
 * the form's checks, the grant, the signed URL.
 */
export async function createUploadGrant(
  deps: Deps,
  ctx: { formId: string; ip: string },
  body: z.output<typeof uploadUrlBodySchema>,
): Promise<UploadUrlResponse> {
  const { form, workspace } = await requireLiveForm(deps, ctx.formId);
  if (!form.accepting) throw errors.formClosed();
  const field = form.fields.find((f) => f.id === body.fieldId) ??
    form.fields.find((f) => f.name === body.fieldId);
  if (!field) {
    throw errors.validation([{
      field: body.fieldId,
      fieldId: body.fieldId,
      message: "No such field on this form.",
      type: "unknown_field",
    }]);
  }
  const grant = await issueGrant(deps, form, workspace, field, {
    fileName: body.fileName,
    contentType: body.contentType,
    size: body.sizeBytes,
    identity: ipIdentity(ctx.ip),
  });
  // Signed as the client declared it (the header it will send); checked in normal form.
  const signed = await deps.storage.signUpload(
    incomingKey(grant.path),
    body.contentType.trim(),
    grant.size_bytes,
    UPLOAD_URL_TTL_SEC,
  );
  return {
    path: grant.path,
    uploadUrl: signed.url,
    uploadToken: grant.token,
    ...(signed.token ? { storageToken: signed.token } : {}),
  };
}

/** A 422 item of type `file` for a field. */
export function fileError(field: Field, message: string): FieldError {
  return { field: field.name, fieldId: field.id, message, type: "file" };
}

/** The 422 item for a grant verification refused: type `file_infected` or `file`. */
export function rejectionError(field: Field, g: UploadGrant): FieldError {
  return {
    ...fileError(field, g.reason ?? "The file was refused."),
    ...(g.infected ? { type: "file_infected" } : {}),
  };
}

/**
 * Checks a declared upload against the field, the plan, the workspace's storage as used
 * now and, given a client `identity`, that client's pending pool; stores the grant (and its
 * bytes in the pool) with its cleanup job in one commit. The workspace is charged on attach.
 */
export async function issueGrant(
  deps: Deps,
  form: Form,
  workspace: Workspace,
  field: Field,
  input: { fileName: string; contentType: string; size: number; identity?: string },
): Promise<UploadGrant> {
  const allowed = allowedTypesOf(field);
  const type = normaliseType(input.contentType);
  const item = (type: string, message: string): FieldError => ({
    field: field.name,
    fieldId: field.id,
    message,
    type,
  });
  const problems: FieldError[] = [];
  if (!isFileType(field.type)) {
    problems.push(item("file", `${field.label || field.name} is not a file field.`));
  } else {
    // The field's rules (lib/rules, as the client library checks before it uploads).
    const cap = planOf(workspace.plan).perFileMB * MB;
    for (const v of fileVerdicts(field, { type: input.contentType, size: input.size }, cap)) {
      problems.push(item(v.type, english(v.id, v.params, field)));
    }
  }
  if (problems.length) throw errors.validation(problems);

  const now = deps.now();
  const grant: UploadGrant = {
    token: newId("upl"),
    path: `${form.id}/${newId("upl").slice(4)}${randomBase62(16)}`,
    form_id: form.id,
    workspace_id: workspace.id,
    field_id: field.id,
    allowed,
    original_filename: sanitiseFileName(input.fileName),
    declared_type: type!,
    size_bytes: input.size,
    created_at: now,
    due_at: now + GRANT_TTL_MS,
    check_at: now + UPLOAD_URL_TTL_SEC * 1000 + UPLOAD_GRACE_MS,
    state: "pending",
    counted: false,
    ...(input.identity
      ? { pending_identity: input.identity, pool_bucket: poolBucketOf(now + GRANT_TTL_MS) }
      : {}),
  };
  const pool = input.identity ? poolKeys(workspace.id, input.identity, now, GRANT_TTL_MS) : [];
  const [used, ...pooled] = await withKvRetry(() =>
    deps.kv.getMany([keys.storageUsed(workspace.id), ...pool])
  );
  if (u64Value(used.value) + input.size > storageCap(workspace)) {
    throw new AppError(429, "quota_exceeded", storageFullMessage(workspace));
  }
  checkPool(pooled, input.size);
  // Grants of concurrent requests share a commit: a new grant reads nothing of another.
  await deps.commits.commit({
    checks: 1,
    bytes: MAX_VALUE_BYTES,
    apply: (op) => {
      op.check({ key: keys.uploadGrant(grant.path), versionstamp: null })
        .set(keys.uploadGrant(grant.path), grant)
        .set(keys.uploadPending(grant.check_at, grant.path), true);
      joinPool(op, grant);
      deps.jobs.enqueue(op, { type: "cleanup_upload", path: grant.path }, {
        delay: grant.check_at - now + 1000,
      });
    },
  });
  return grant;
}

/** Bytes a workspace may store under its plan. */
export function storageCap(workspace: Workspace): number {
  return planOf(workspace.plan).storageMB * MB;
}

/** The message of a full workspace's storage (429 at upload-URL time, 422 on verification). */
export function storageFullMessage(workspace: Workspace): string {
  const plan = planOf(workspace.plan);
  return `This workspace's file storage (${plan.storageMB} MB on the ${plan.name} plan) is full.`;
}
