/**
 * One logical submission (a job) sent to the service: its files uploaded first, then the
 * JSON submit under the job's one Idempotency-Key, retried while failures are transient.
 * `409 schema_changed`: the schema is fetched again and the job resubmitted once if its
 * data still passes the client-side check. A `422` naming only file fields whose bytes the
 * job still holds (an upload grant expired while it waited) uploads them again and
 * resubmits once: a 422 proves no submission is stored under the key.
 * @module
 */
import { FormwellError } from "./errors.ts";
import { type Endpoint, type RetryPolicy, send, withRetry } from "./http.ts";
import { uploadFile, type UploadProgress } from "./upload.ts";
import { checkData, checkFile } from "./validate.ts";
import type { FileRef, PublicSchema, SubmitResult } from "./types.ts";

/** A logical submission, as kept in the outbox until the service answers it for good. */
export interface Job {
  /** The Idempotency-Key of every attempt. */
  id: string;
  baseUrl: string;
  publicId: string;
  data: Record<string, unknown>;
  /** The bytes of file fields, kept until the submission is stored. */
  files: Record<string, Blob>;
  /** File references of the fields already uploaded. */
  refs: Record<string, FileRef>;
  captchaToken?: string;
  metadata?: Record<string, unknown>;
  schemaVersion?: number;
  createdAt: number;
  /** The draft the submission completes (removed with it). */
  draftId?: string;
  /** Sends that ended in a transient failure (the outbox backs off by it). */
  attempts: number;
}

/** What sending a job needs besides the endpoint. */
export interface SendHooks {
  policy: RetryPolicy;
  signal?: AbortSignal;
  onProgress?: (p: UploadProgress) => void;
  /** Keeps the job's progress (file references, adopted schema version). */
  save: (job: Job) => Promise<void>;
  /** The form's schema, fetched again when `fresh`. */
  schema: (publicId: string, fresh: boolean) => Promise<PublicSchema>;
}

/** The `data` the job submits: its values and its file references. */
export function dataOf(job: Job): Record<string, unknown> {
  return { ...job.data, ...job.refs };
}

async function upload(
  ep: Endpoint,
  job: Job,
  hooks: SendHooks,
  fields: string[],
) {
  const total = fields.reduce((n, f) => n + job.files[f].size, 0);
  let done = 0;
  for (const field of fields) {
    const file = job.files[field];
    job.refs[field] = await withRetry(
      ep.rt,
      hooks.policy,
      () =>
        uploadFile(ep, job.publicId, field, file, {
          signal: hooks.signal,
          onProgress: (p) => hooks.onProgress?.({ field, loaded: done + p.loaded, total }),
        }),
      hooks.signal,
    );
    done += file.size;
    await hooks.save(job);
  }
}

function post(
  ep: Endpoint,
  job: Job,
  signal?: AbortSignal,
): Promise<SubmitResult> {
  return send<SubmitResult>(ep, {
    method: "POST",
    path: `/api/v1/submit/p/${encodeURIComponent(job.publicId)}`,
    headers: { "idempotency-key": job.id },
    body: {
      data: dataOf(job),
      captcha_token: job.captchaToken,
      metadata: job.metadata,
      schema_version: job.schemaVersion,
      ...(job.draftId ? { draft_id: job.draftId } : {}),
    },
    signal,
  }).then((b) => ({
    submission_id: b.submission_id,
    submission_number: b.submission_number,
  }));
}

/** Takes the new schema's version when the job's data passes it; else the 409 with the problems. */
function adopt(job: Job, schema: PublicSchema, err: FormwellError): void {
  const ids = new Map(schema.form.fields.map((f) => [f.name, f.id]));
  const problems = checkData(
    schema.form.fields,
    dataOf(job),
    schema.form.honeypot,
    schema.form.steps,
  );
  if (problems.length) {
    throw new FormwellError(409, "schema_changed", err.message, {
      errors: problems.map((p) => ({ ...p, fieldId: ids.get(p.field) ?? "" })),
      requestId: err.requestId,
      body: err.body,
    });
  }
  job.schemaVersion = schema.form.schema_version;
}

/**
 * Every field's problem of `job` against `schema` before anything is sent: its values and
 * its files (type and size; a file stands in as a reference). Null when there is none,
 * else one `422 validation_failed` naming them all, as the service would answer.
 */
export function precheck(job: Job, schema: PublicSchema): FormwellError | null {
  const fields = schema.form.fields;
  const placeholders: Record<string, FileRef> = {};
  const found = [];
  for (const [name, file] of Object.entries(job.files)) {
    const field = fields.find((f) => f.name === name);
    placeholders[name] = {
      path: "pending",
      originalFilename: (file as File).name || name,
      mimeType: file.type || "application/octet-stream",
      sizeBytes: file.size,
    };
    if (field) {
      found.push(
        ...checkFile(field, {
          type: file.type || "application/octet-stream",
          size: file.size,
        }),
      );
    }
  }
  const data = { ...job.data, ...placeholders, ...job.refs };
  found.unshift(
    ...checkData(fields, data, schema.form.honeypot, schema.form.steps),
  );
  if (!found.length) return null;
  const ids = new Map(fields.map((f) => [f.name, f.id]));
  const seen = new Set<string>();
  const errors = found.filter((p) => {
    const key = `${p.field}\u0000${p.type}`;
    return !seen.has(key) && seen.add(key);
  }).map((p) => ({ ...p, fieldId: ids.get(p.field) ?? "" }));
  return new FormwellError(
    422,
    "validation_failed",
    "The submission has invalid fields.",
    {
      errors,
    },
  );
}

/** Sends a job: uploads, then the submit; resolves the stored submission or throws. */
export async function sendJob(
  ep: Endpoint,
  job: Job,
  hooks: SendHooks,
): Promise<SubmitResult> {
  await upload(
    ep,
    job,
    hooks,
    Object.keys(job.files).filter((f) => !job.refs[f]),
  );
  let schemaRetried = false;
  let filesRetried = false;
  for (;;) {
    try {
      return await withRetry(
        ep.rt,
        hooks.policy,
        () => post(ep, job, hooks.signal),
        hooks.signal,
      );
    } catch (err) {
      if (!(err instanceof FormwellError)) throw err;
      if (err.code === "schema_changed" && !schemaRetried) {
        schemaRetried = true;
        adopt(job, await hooks.schema(job.publicId, true), err);
        await hooks.save(job);
        continue;
      }
      const stale = err.status === 422 &&
        err.errors.every((e) => e.type === "file" && job.files[e.field]);
      if (stale && err.errors.length && !filesRetried) {
        filesRetried = true;
        await upload(ep, job, hooks, err.errors.map((e) => e.field));
        continue;
      }
      throw err;
    }
  }
}
