/**
 * What the admin System page shows: the last backup, the job backlog, undelivered jobs
 * (with a retry that enqueues one again) and the versions running.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry } from "@/lib/kv/kv.ts";
import { jobSchema } from "@/lib/jobs/queue.ts";
import { errors } from "@/lib/errors.ts";
import { type BackupRecord, lastBackup } from "./backup.ts";
import { isLocalKvFile } from "./kv_snapshot.ts";
import { FORMWELL_VERSION } from "./version.ts";
import { type JobBacklog, jobBacklog } from "@/lib/observe/backlog.ts";

/** Jobs waiting to run: how many and since when (null where the backend cannot tell). */
export type Backlog = Pick<JobBacklog, "pending" | "oldestDueAt">;

/** An undelivered job as listed. */
export interface UndeliveredJob {
  id: string;
  type: string;
  /** The job's payload without long lists, for a glance. */
  summary: string;
}

/** Everything on the System page. */
export interface SystemStatus {
  lastBackup: BackupRecord | null;
  backlog: Backlog;
  undelivered: UndeliveredJob[];
  /** All undelivered jobs (the list shows the first UNDELIVERED_SHOWN). */
  undeliveredTotal: number;
  versions: { formwell: string; deno: string; v8: string; typescript: string; kv: string };
}

/** Undelivered jobs listed at most. */
export const UNDELIVERED_SHOWN = 100;

/** Reads the System page's status. */
export async function systemStatus(deps: Deps): Promise<SystemStatus> {
  const undelivered: UndeliveredJob[] = [];
  let undeliveredTotal = 0;
  for await (const e of deps.kv.list({ prefix: keys.undeliveredJobs() })) {
    undeliveredTotal++;
    if (undelivered.length >= UNDELIVERED_SHOWN) continue;
    const job = (e.value ?? {}) as Record<string, unknown>;
    undelivered.push({
      id: String(e.key[1]),
      type: typeof job.type === "string" ? job.type : "unknown",
      summary: summarise(job),
    });
  }
  return {
    lastBackup: await lastBackup(deps.kv),
    backlog: await backlog(deps),
    undelivered,
    undeliveredTotal,
    versions: {
      formwell: FORMWELL_VERSION,
      deno: Deno.version.deno,
      v8: Deno.version.v8,
      typescript: Deno.version.typescript,
      kv: kvBackend(deps.config.kvPath),
    },
  };
}

/**
 * Moves an undelivered job back to the job runner (one commit); 404 when it is gone, 400
 * when its message is no valid job.
 */
export async function retryUndelivered(deps: Deps, id: string): Promise<void> {
  const done = await commitWithRetry(deps.kv, async (op) => {
    const entry = await deps.kv.get(keys.undelivered(id));
    if (entry.versionstamp === null) return null;
    const parsed = jobSchema.safeParse(entry.value);
    if (!parsed.success) throw errors.badRequest("This job is not one Formwell can run again.");
    op.check(entry).delete(entry.key);
    deps.jobs.enqueue(op, parsed.data);
    return true;
  });
  if (!done) throw errors.notFound("That job is no longer undelivered.");
}

/** Which KV backend the service runs on, in words. */
export function kvBackend(kvPath: string | undefined): string {
  if (kvPath === ":memory:") return "in-memory (SQLite)";
  if (isLocalKvFile(kvPath)) return "local file (SQLite)";
  if (kvPath) return "KV Connect (remote)";
  return "Deno Deploy KV";
}

async function backlog(deps: Deps): Promise<Backlog> {
  const { pending, oldestDueAt } = await jobBacklog(deps);
  return { pending, oldestDueAt };
}

/** Fields shown of a job: ids and counters only (an account mail's text holds a sign-in link). */
const SHOWN = [
  "form_id",
  "workspace_id",
  "webhook_id",
  "event_id",
  "submission_id",
  "kind",
  "attempt",
];
const COUNTED = ["ids", "event_ids", "paths"];

function summarise(job: Record<string, unknown>): string {
  const parts = [
    ...SHOWN.filter((k) => job[k] !== undefined).map((k) => `${k}: ${String(job[k]).slice(0, 60)}`),
    ...COUNTED.filter((k) => Array.isArray(job[k])).map((k) =>
      `${k}: ${(job[k] as unknown[]).length}`
    ),
  ];
  return parts.join(", ");
}
