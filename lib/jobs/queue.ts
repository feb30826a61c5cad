/**
 * The job union (zod, keyed on `type`) and the KV-queue enqueue `JOBS=queue` uses.
 * Handlers and `dispatch` live in jobs/mod.ts; the runners in queue_runner.ts and
 * table_runner.ts.
 * @module
 */
import { z } from "zod";
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import {
  deliverWebhookJobSchema,
  notifyCreatedJobSchema,
  sendAccountMailJobSchema,
  sendEmailJobSchema,
  sendVisitorMailJobSchema,
} from "@/lib/notify/jobs.ts";

/** Every kind of job, by `type`. */
const jobKinds = z.discriminatedUnion("type", [
  z.object({ type: z.literal("delete_files"), paths: z.array(z.string()).max(5000) }),
  z.object({ type: z.literal("cleanup_upload"), path: z.string() }),
  // erase by person, retention of one form's data
  z.object({ type: z.literal("privacy_erase"), job_id: z.string().max(100) }),
  z.object({ type: z.literal("retention"), form_id: z.string().max(100) }),
  // One per group commit of submissions when Akismet is on: asks it and writes the final
  // verdicts.
  z.object({
    type: z.literal("score_batch"),
    form_id: z.string(),
    // The form's workspace, so the job reads everything it needs at once.
    workspace_id: z.string().max(100),
    mode: z.enum(["live", "test"]),
    ids: z.array(z.string()).min(1).max(1000),
  }),
  sendEmailJobSchema,
  deliverWebhookJobSchema,
  notifyCreatedJobSchema,
  // An admin's label teaches the workspace's token statistics (lib/spam/learn.ts).
  z.object({
    type: z.literal("learn_label"),
    workspace_id: z.string().max(100),
    form_id: z.string().max(100),
    submission_id: z.string().max(100),
    label: z.enum(["spam", "ham"]),
    previous: z.enum(["spam", "ham"]).nullable(),
  }),
  sendAccountMailJobSchema,
  sendVisitorMailJobSchema,
  // Removes drafts that fell due (lib/drafts/expiry.ts).
  z.object({ type: z.literal("drafts_sweep") }),
]);

/**
 * Every job the queue carries: a kind, and the W3C `traceparent` of the context that
 * enqueued it when traces are on (observe/trace.ts), so its span continues that trace.
 */
export const jobSchema = z.intersection(
  jobKinds,
  z.object({
    trace: z.string().regex(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/).optional(),
  }),
);
/** A job. */
export type Job = z.infer<typeof jobSchema>;

/**
 * Adds a job to an atomic operation's KV queue (`JOBS=queue`; everything else enqueues
 * through `deps.jobs`); it lands under `undelivered_jobs` if every attempt fails.
 */
export function enqueueJob(
  op: Deno.AtomicOperation,
  job: Job,
  options: { delay?: number; backoffSchedule?: number[] } = {},
): void {
  // No backoffSchedule means KV's default (retries over about 96 s); tests pass a short one.
  op.enqueue(job, {
    delay: options.delay,
    backoffSchedule: options.backoffSchedule,
    keysIfUndelivered: [keys.undelivered(newId("job"))],
  });
}
