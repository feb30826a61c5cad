/**
 * Background jobs on the KV queue: the job union (zod, keyed on `type`), enqueueing
 * inside a caller's atomic operation. Handlers and `dispatch` live in jobs/mod.ts.
 * @module
 */
import { z } from "zod";
import type { Deps } from "@/lib/deps.ts";
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { deliverWebhookJobSchema, sendEmailJobSchema } from "@/lib/notify/jobs.ts";

/** Every job the queue carries. */
export const jobSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("delete_files"), paths: z.array(z.string()).max(5000) }),
  z.object({ type: z.literal("cleanup_upload"), path: z.string() }),
  sendEmailJobSchema,
  deliverWebhookJobSchema,
]);
/** A job. */
export type Job = z.infer<typeof jobSchema>;

/** A job handler; must be idempotent (a message may be delivered more than once). */
export type JobHandler<T extends Job["type"]> = (
  deps: Deps,
  job: Extract<Job, { type: T }>,
) => Promise<void>;

/** Adds a job to an atomic operation; it lands under `undelivered_jobs` if every attempt fails. */
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
