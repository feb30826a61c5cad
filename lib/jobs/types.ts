/**
 * The background-jobs interface (a leaf: types only). Two implementations, chosen by
 * `JOBS`: KV queues (jobs/queue_runner.ts) and a job table in KV with leases
 * (jobs/table_runner.ts). See docs/decisions/background-jobs.md.
 * @module
 */
import type { Job } from "./queue.ts";

/** How a job is enqueued. */
export interface EnqueueOptions {
  /** Milliseconds before the first attempt. */
  delay?: number;
  /** Milliseconds before each retry; its length is the number of retries. */
  backoffSchedule?: number[];
}

/** What a running job may use besides its message. */
export interface JobContext {
  /**
   * Adds the job's completion to `op` (table mode: deletes its entry; queue mode: nothing),
   * so the handler's last commit also retires the job and saves a commit.
   */
  complete(op: Deno.AtomicOperation): void;
}

/** Runs one job; throws to have it retried (and, after the last attempt, kept undelivered). */
export type JobRunner = (msg: unknown, ctx: JobContext) => Promise<void>;

/** Background jobs: enqueued inside a caller's atomic operation, run by `start`'s handler. */
export interface Jobs {
  /** `queue` (KV queues) or `table` (a job table in KV with leases). */
  readonly mode: "queue" | "table";
  /** Adds `job` to `op`: it exists once (and only if) `op` commits. */
  enqueue(op: Deno.AtomicOperation, job: Job, options?: EnqueueOptions): void;
  /** Starts running jobs with `handler` (once per process). */
  start(handler: JobRunner): void;
  /** Stops taking new jobs and waits for the running ones. */
  stop(): Promise<void>;
  /**
   * When this process's runner last showed it is alive (ms since the epoch), or null when
   * it is not running (never started, stopped, or its listener ended).
   */
  heartbeat(): number | null;
}
