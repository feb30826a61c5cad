/**
 * The job handlers and `dispatch`, the router `deps.jobs` runs every job through.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { type Job, jobSchema } from "./queue.ts";
import { cleanupUpload } from "./cleanup_upload.ts";
import { deleteFiles } from "./delete_files.ts";
import { runErase } from "@/lib/privacy/erase.ts";
import { runRetention } from "@/lib/privacy/retention.ts";
import { scoreBatch } from "./score_batch.ts";
import { learnLabel } from "./learn_label.ts";
import { runDraftSweep } from "@/lib/drafts/expiry.ts";
import type { JobContext } from "./types.ts";
import { inJobSpan } from "@/lib/observe/trace.ts";

/** A job handler; must be idempotent (a message may be delivered more than once). */
export type JobHandler<T extends Job["type"]> = (
  deps: Deps,
  job: Extract<Job, { type: T }>,
  ctx: JobContext,
) => Promise<void>;
import { sendAccountMailJob, sendEmailJob, sendVisitorMailJob } from "@/lib/notify/mailer.ts";
import { deliverWebhookJob } from "@/lib/notify/deliver.ts";
import { notifyCreatedJob } from "@/lib/notify/mod.ts";
import { logger } from "@/lib/observe/log.ts";

const handlers: { [T in Job["type"]]: JobHandler<T> } = {
  delete_files: deleteFiles,
  cleanup_upload: cleanupUpload,
  privacy_erase: (deps, job) => runErase(deps, job.job_id),
  retention: (deps, job) => runRetention(deps, job.form_id),
  score_batch: scoreBatch,
  send_email: sendEmailJob,
  deliver_webhook: deliverWebhookJob,
  notify_created: notifyCreatedJob,
  learn_label: learnLabel,
  send_account_mail: sendAccountMailJob,
  drafts_sweep: (deps) => runDraftSweep(deps),
  send_visitor_mail: sendVisitorMailJob,
};

const NO_CONTEXT: JobContext = { complete: () => {} };

/**
 * Routes one queue message to its handler. Invalid messages are logged and dropped
 * (returning normally so they are not retried); handler errors propagate so the job is
 * retried, and after the last attempt it lands under `undelivered_jobs`.
 */
export async function dispatch(
  deps: Deps,
  msg: unknown,
  ctx: JobContext = NO_CONTEXT,
): Promise<void> {
  const parsed = jobSchema.safeParse(msg);
  if (!parsed.success) {
    logger.warn("dropping invalid job", { issues: parsed.error.issues.length });
    return;
  }
  const job = parsed.data;
  const handler = handlers[job.type] as JobHandler<Job["type"]>;
  try {
    await inJobSpan(`job ${job.type}`, job.trace, () => handler(deps, job, ctx), {
      "formwell.job": job.type,
    });
    deps.metrics?.job(job.type, true);
  } catch (err) {
    deps.metrics?.job(job.type, false);
    throw err;
  }
}
