/**
 * Erase by person: a background job deletes every submission of a workspace whose
 * email-type field holds an address, found through the email index only, through the
 * same delete path as any other delete (counters, indexes, files), with what notifications
 * kept about each (stored events, outbox mails, email and delivery log entries; see
 * lib/notify/copies.ts), and records how many went per form. The job record (status and
 * counts, never the address) is kept 30 days.
 * @module
 */
import { z } from "zod";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { newId } from "@/lib/ids.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import { getForm } from "@/lib/forms/forms.ts";
import { type CopyCounts, eraseCopies } from "@/lib/notify/copies.ts";
import { deleteSubmissions } from "@/lib/submissions/delete.ts";
import { auditMutation } from "./audit.ts";
import { emailDigest, emailMatches } from "./email_index.ts";
import { eraseDrafts } from "@/lib/drafts/privacy.ts";
import { eraseResumeMails } from "@/lib/drafts/resume_copies.ts";

/** How long a finished job's record is kept. */
const JOB_KEEP_MS = 30 * 86_400_000;
/** Index entries one job run works through before it hands over to a fresh message. */
const PER_RUN = 500;
const PAGE = 100;

/** The erase body: `{"email": "..."}`. */
export const eraseBodySchema = z.object({
  email: z.string().trim().min(3).max(320).regex(/^[^@\s]+@[^@\s]+$/, "an email address"),
}).strict();

/** A stored privacy job. `forms` counts deleted submissions by form public id. */
export interface PrivacyJob {
  id: string;
  workspace_id: string;
  kind: "erase";
  /** The data mode erased: a key's own mode, or both for an admin user. */
  modes: Mode[];
  status: "running" | "done";
  deleted: number;
  forms: Record<string, number>;
  /** Notification copies removed. */
  copies: number;
  /** Drafts (saved progress) removed. */
  drafts: number;
  /** HMAC digest of the address (the address itself is not kept). */
  digest: string;
  actor: string;
  created_at: string;
  finished_at: string | null;
}

/** The job as the API shows it. */
export function jobView(
  j: PrivacyJob,
): Pick<PrivacyJob, "id" | "kind" | "status" | "deleted" | "forms" | "created_at" | "finished_at"> {
  return {
    id: j.id,
    kind: j.kind,
    status: j.status,
    deleted: j.deleted,
    forms: j.forms,
    created_at: j.created_at,
    finished_at: j.finished_at,
  };
}

/** Starts erasing `email` in a workspace: stores the job, audits it, enqueues the work. */
export async function startErase(
  deps: Pick<Deps, "kv" | "now" | "secret" | "jobs">,
  input: { workspaceId: string; modes: Mode[]; email: string; actor: string; ip?: string | null },
): Promise<PrivacyJob> {
  const job: PrivacyJob = {
    id: newId("job"),
    workspace_id: input.workspaceId,
    kind: "erase",
    modes: input.modes,
    status: "running",
    deleted: 0,
    forms: {},
    copies: 0,
    drafts: 0,
    digest: emailDigest(deps.secret, input.email),
    actor: input.actor,
    created_at: new Date(deps.now()).toISOString(),
    finished_at: null,
  };
  const op = deps.kv.atomic()
    .check({ key: keys.privacyJob(job.id), versionstamp: null })
    .set(keys.privacyJob(job.id), job);
  auditMutation(op, deps.now(), {
    workspaceId: input.workspaceId,
    action: "privacy.erasure",
    actor: input.actor,
    ip: input.ip,
    details: { job_id: job.id, phase: "started" },
  });
  deps.jobs.enqueue(op, { type: "privacy_erase", job_id: job.id });
  const res = await withKvRetry(() => op.commit());
  if (!res.ok) throw errors.unavailable();
  return job;
}

/**
 * A workspace's privacy job, when every mode it erased is one of `modes` (an API key's own
 * mode; both for an admin user): another workspace's job, or a job that touched data of a
 * mode the caller cannot see, is the same 404 as an unknown id.
 */
export async function requirePrivacyJob(
  deps: Pick<Deps, "kv">,
  workspaceId: string,
  modes: readonly Mode[],
  id: string,
): Promise<PrivacyJob> {
  const found = /^job_[0-9a-z]{26}$/.test(id)
    ? (await withKvRetry(() => deps.kv.get<PrivacyJob>(keys.privacyJob(id)))).value
    : null;
  if (
    !found || found.workspace_id !== workspaceId || !found.modes.every((m) => modes.includes(m))
  ) {
    throw new AppError(404, "not_found", "Privacy job not found.");
  }
  return found;
}

/**
 * Works an erase job: up to PER_RUN index entries, then enqueues itself again, or marks
 * the job done. Idempotent and resumable: the index holds exactly what is left to do.
 */
export async function runErase(deps: Deps, jobId: string): Promise<void> {
  const entry = await withKvRetry(() => deps.kv.get<PrivacyJob>(keys.privacyJob(jobId)));
  const job = entry.value;
  if (!job || job.status === "done") return;
  let handled = 0;
  for (const mode of job.modes) {
    while (handled < PER_RUN) {
      const matches = await emailMatches(deps.kv, job.workspace_id, job.digest, mode, PAGE);
      if (!matches.length) break;
      handled += matches.length;
      const byForm = new Map<string, string[]>();
      for (const m of matches) byForm.set(m.formId, [...byForm.get(m.formId) ?? [], m.id]);
      for (const [formId, ids] of byForm) {
        const form = await getForm(deps, formId);
        // Copies go first, while the index still leads here (a rerun finds them again),
        // and once more after the delete, for what a notification wrote meanwhile.
        const before = await eraseCopies(deps, ids);
        const r = form && form.workspace_id === job.workspace_id
          ? await deleteSubmissions(deps, form, mode, ids)
          : { deleted: 0, not_found: ids };
        const copies = total(before) + total(await eraseCopies(deps, ids));
        if (r.not_found.length) await dropStale(deps, job, mode, formId, r.not_found);
        if (r.deleted || copies) await addProgress(deps, job.id, formId, r.deleted, copies);
      }
    }
  }
  if (handled < PER_RUN) {
    // Drafts are live data; their index is walked to its end here, one checked delete each.
    if (job.modes.includes("live")) {
      const drafts = await eraseDrafts(deps, job.workspace_id, job.digest);
      // Resume links mailed to the address (its email log and outbox copies).
      const mails = await eraseResumeMails(deps, job.workspace_id, job.digest);
      if (drafts || mails) {
        await updateJob(deps, job.id, (j) => ({
          ...j,
          drafts: j.drafts + drafts,
          copies: j.copies + mails,
        }));
      }
    }
    return await finish(deps, job.id);
  }
  const op = deps.kv.atomic();
  deps.jobs.enqueue(op, { type: "privacy_erase", job_id: job.id });
  const res = await withKvRetry(() => op.commit());
  if (!res.ok) throw new Error("re-enqueue of the erase job failed");
}

/** Removes index entries whose submission is gone (so the walk always moves on). */
async function dropStale(deps: Deps, job: PrivacyJob, mode: Mode, formId: string, ids: string[]) {
  const op = deps.kv.atomic();
  for (const id of ids) {
    op.delete(keys.submissionByEmail(job.workspace_id, job.digest, mode, formId, id));
  }
  const res = await withKvRetry(() => op.commit());
  if (!res.ok) throw new Error("stale index cleanup failed");
}

function total(c: CopyCounts): number {
  return c.events + c.outbox_mails + c.email_log_entries + c.webhook_deliveries;
}

async function addProgress(deps: Deps, jobId: string, formId: string, n: number, copies: number) {
  await updateJob(deps, jobId, (j) => ({
    ...j,
    deleted: j.deleted + n,
    forms: n ? { ...j.forms, [formId]: (j.forms[formId] ?? 0) + n } : j.forms,
    copies: j.copies + copies,
  }));
}

async function finish(deps: Deps, jobId: string): Promise<void> {
  const done = await updateJob(deps, jobId, (j) => ({
    ...j,
    status: "done",
    finished_at: new Date(deps.now()).toISOString(),
  }), JOB_KEEP_MS);
  if (!done) return;
  await withKvRetry(() => {
    const op = deps.kv.atomic();
    auditMutation(op, deps.now(), {
      workspaceId: done.workspace_id,
      action: "privacy.erasure",
      actor: done.actor,
      details: {
        job_id: done.id,
        phase: "done",
        deleted: done.deleted,
        forms: done.forms,
        copies: done.copies,
        drafts: done.drafts,
      },
    });
    return op.commit();
  });
}

async function updateJob(
  deps: Deps,
  jobId: string,
  change: (j: PrivacyJob) => PrivacyJob,
  expireIn?: number,
): Promise<PrivacyJob | null> {
  return await commitWithRetry(deps.kv, async (op) => {
    const e = await deps.kv.get<PrivacyJob>(keys.privacyJob(jobId));
    if (!e.value) return null;
    const next = change(e.value);
    op.check(e).set(e.key, next, expireIn ? { expireIn } : undefined);
    return next;
  });
}
