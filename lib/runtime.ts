/**
 * Building the dependencies from configuration; used by main.ts, cli.ts and tests.
 * @module
 */
import type { Config } from "./config.ts";
import type { Deps } from "./deps.ts";
import { loadSecret } from "./secret.ts";
import { createStorage } from "@/lib/uploads/storage/mod.ts";
import { SubmissionWriter } from "@/lib/submissions/writer.ts";
import { TtlCache } from "./ttl_cache.ts";
import { KvReads } from "@/lib/kv/reads.ts";
import { markRemote } from "@/lib/kv/batcher.ts";
import { GroupCommits } from "@/lib/kv/group_commits.ts";
import { EntryLockTable } from "@/lib/kv/entry_locks.ts";
import { LimitSpends } from "@/lib/ratelimit/spends.ts";
import { QueueJobs } from "@/lib/jobs/queue_runner.ts";
import { TableJobs } from "@/lib/jobs/table_runner.ts";
import type { Jobs } from "@/lib/jobs/types.ts";
import { modelLoader } from "@/lib/spam/load.ts";
import { FAILURES_KNOWN_MS } from "@/lib/protection/failures.ts";
import { Metrics } from "@/lib/observe/metrics.ts";
import type { MetricsPort } from "@/lib/observe/types.ts";
import { readBacklog } from "@/lib/observe/backlog.ts";

/** How long an authenticated key is trusted without a read (bounded by SPEC's ~30 s). */
const KEY_CACHE_TTL_MS = 5_000;

/**
 * Opens the configured KV: a file (directory created), `:memory:`, a URL, or the platform
 * default (the last two served over the network: see markRemote).
 */
export async function openKv(config: Pick<Config, "kvPath">): Promise<Deno.Kv> {
  const path = config.kvPath;
  const remote = !path || /^https?:\/\//.test(path);
  if (!remote && path !== ":memory:") {
    const dir = path.replace(/[^/]*$/, "");
    if (dir) await Deno.mkdir(dir, { recursive: true });
  }
  const kv = await Deno.openKv(path);
  if (remote) markRemote(kv);
  return kv;
}

/** The background jobs `JOBS` names, over `kv`. */
export function createJobs(kv: Deno.Kv, config: Pick<Config, "jobs">, now = Date.now): Jobs {
  return config.jobs === "table" ? new TableJobs(kv, { now }) : new QueueJobs(kv, { now });
}

/**
 * What tests, worker processes and tools may replace: outgoing HTTP, the clock, the job
 * runner, and the metrics port (how the bench and the soak observe a process).
 */
export interface DepsOverrides {
  fetch?: Deps["fetch"];
  now?: Deps["now"];
  /** Builds the job runner over the KV (e.g. a table runner with a short lease). */
  jobs?: (kv: Deno.Kv) => Jobs;
  /**
   * The metrics port, given the one `METRICS_TOKEN` configures (if any) to wrap. Requests
   * are counted, and `/metrics` answers, only with the token set.
   */
  metrics?: (configured: MetricsPort | undefined) => MetricsPort | undefined;
}

/** Builds every dependency over an open KV; nothing in it is shared with another build. */
export async function buildDeps(
  kv: Deno.Kv,
  config: Config,
  overrides: DepsOverrides = {},
): Promise<Deps> {
  const now = overrides.now ?? Date.now;
  const secret = await loadSecret(kv, config.secret);
  const entryLocks = new EntryLockTable();
  const base: Omit<Deps, "writer"> = {
    kv,
    config,
    secret,
    entryLocks,
    fetch: overrides.fetch ?? globalThis.fetch.bind(globalThis),
    now,
    storage: createStorage(config, secret, now),
    keyCache: new TtlCache(KEY_CACHE_TTL_MS, 10_000, now),
    formWorkspaces: new Map(),
    knownFailures: new TtlCache(FAILURES_KNOWN_MS, 10_000, now),
    reads: new KvReads(kv),
    limits: new LimitSpends({ kv, now, entryLocks }),
    commits: new GroupCommits(kv),
    inflight: {
      captchaClaims: new Map(),
      posts: new Map(),
      attaching: new WeakMap(),
      charging: new WeakMap(),
    },
    jobs: overrides.jobs?.(kv) ?? createJobs(kv, config, now),
    spamModel: modelLoader(),
  };
  const configured = config.ops.metricsToken ? new Metrics(() => readBacklog(base)) : undefined;
  const metrics = overrides.metrics ? overrides.metrics(configured) : configured;
  if (metrics) base.metrics = metrics;
  return { ...base, writer: new SubmissionWriter(base) };
}
