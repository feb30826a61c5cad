/**
 * Readiness (`GET /readyz`): KV answers (one backlog read, bounded in time), this process's
 * job runner is alive (its heartbeat is recent), and the oldest due job has not waited
 * longer than `READY_MAX_JOB_AGE_S`.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { readBacklog } from "./backlog.ts";
import type { Backlog } from "./types.ts";

/** A KV read slower than this counts as KV not answering. */
export const KV_TIMEOUT_MS = 2_000;
/** A job runner whose heartbeat is older than this is taken as stalled. */
export const HEARTBEAT_MAX_MS = 60_000;

/** What `/readyz` answers: `ok` and, when not, every reason. */
export interface Readiness {
  ok: boolean;
  kv: "ok" | "failed";
  jobs: { mode: "queue" | "table"; runner: "alive" | "stopped" | "stalled" };
  backlog: Backlog | null;
  reasons: string[];
}

/** Checks KV, the job runner and the backlog. */
export async function readiness(deps: Deps): Promise<Readiness> {
  const reasons: string[] = [];
  let backlog: Backlog | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    backlog = await Promise.race([
      readBacklog(deps),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("timeout")), KV_TIMEOUT_MS);
      }),
    ]);
  } catch (err) {
    reasons.push(
      err instanceof Error && err.message === "timeout"
        ? `KV did not answer within ${KV_TIMEOUT_MS} ms.`
        : "KV did not answer.",
    );
  } finally {
    clearTimeout(timer);
  }
  const beat = deps.jobs.heartbeat();
  const runner = beat === null
    ? "stopped"
    : deps.now() - beat > HEARTBEAT_MAX_MS
    ? "stalled"
    : "alive";
  if (runner === "stopped") reasons.push("The job runner is not running.");
  if (runner === "stalled") {
    reasons.push(`The job runner showed no sign of life for over ${HEARTBEAT_MAX_MS / 1000} s.`);
  }
  const bound = deps.config.ops.readyMaxJobAgeMs;
  const age = backlog?.oldestDueAgeMs ?? null;
  if (age !== null && age > bound) {
    reasons.push(
      `The oldest due job has waited ${Math.round(age / 1000)} s (bound: ${bound / 1000} s).`,
    );
  }
  return {
    ok: reasons.length === 0,
    kv: backlog ? "ok" : "failed",
    jobs: { mode: deps.jobs.mode, runner },
    backlog,
    reasons,
  };
}
