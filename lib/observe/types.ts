/**
 * Types of lib/observe (a leaf): what lib code counts through `deps.metrics`.
 * @module
 */

/** The pending jobs (observe/backlog.ts). */
export interface JobBacklog {
  /** Jobs not yet done: due, delayed and running; null when it cannot be read. */
  pending: number | null;
  /** When the first pending job is (or was) due, epoch ms; null: none or unknown. */
  oldestDueAt: number | null;
  /** How long the oldest due job has waited past its due time (0: none); null: unknown. */
  oldestDueAgeMs: number | null;
}

/** What a backlog read found: the pending jobs and the undelivered ones. */
export interface Backlog extends JobBacklog {
  /** Jobs kept under `undelivered_jobs` after their last attempt. */
  undelivered: number;
}

/** The counting side of the metrics (observe/metrics.ts); absent when metrics are off. */
export interface MetricsPort {
  /** Counts one answered request (`route` is its pattern) and its duration. */
  request(route: string, status: number, seconds: number): void;
  /** Counts `n` stored submissions of `status`. */
  submissions(status: string, n?: number): void;
  /**
   * Counts a final verdict by its status, and observes the seconds from the submission's
   * storing commit (its `created_at`) to the verdict's.
   */
  verdict(status: string, seconds: number): void;
  /** Counts a webhook delivery attempt's result. */
  webhook(result: string): void;
  /** Counts an email's result. */
  email(result: string): void;
  /** Counts a job run. */
  job(type: string, ok: boolean): void;
  /** Observes a KV commit's latency. */
  commit(kind: "submissions" | "verdict", seconds: number): void;
  /** The Prometheus text of every metric. */
  text(): Promise<string>;
  /** The exposition's content type. */
  readonly contentType: string;
}
