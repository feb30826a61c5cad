/**
 * The job handlers and `dispatch`, the one queue listener's router.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { type Job, type JobHandler, jobSchema } from "./queue.ts";
import { cleanupUpload } from "./cleanup_upload.ts";
import { deleteFiles } from "./delete_files.ts";
import { sendEmailJob } from "@/lib/notify/mailer.ts";
import { deliverWebhookJob } from "@/lib/notify/deliver.ts";

const handlers: { [T in Job["type"]]: JobHandler<T> } = {
  delete_files: deleteFiles,
  cleanup_upload: cleanupUpload,
  send_email: sendEmailJob,
  deliver_webhook: deliverWebhookJob,
};

/**
 * Routes one queue message to its handler. Invalid messages are logged and dropped
 * (returning normally so KV does not redeliver them); handler errors propagate so KV
 * retries the message, and after the last attempt it lands under `undelivered_jobs`.
 */
export async function dispatch(deps: Deps, msg: unknown): Promise<void> {
  const parsed = jobSchema.safeParse(msg);
  if (!parsed.success) {
    console.error(
      JSON.stringify({
        level: "warn",
        msg: "dropping invalid job",
        issues: parsed.error.issues.length,
      }),
    );
    return;
  }
  const handler = handlers[parsed.data.type] as JobHandler<Job["type"]>;
  await handler(deps, parsed.data);
}
