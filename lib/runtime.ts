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
import { LimitSpends } from "@/lib/ratelimit/spends.ts";
import { LimitBudgets } from "@/lib/ratelimit/budgets.ts";
import { QueueJobs } from "@/lib/jobs/queue_runner.ts";
import { TableJobs } from "@/lib/jobs/table_runner.ts";
import type { Jobs } from "@/lib/jobs/types.ts";

/** How long an authenticated key is trusted without a read (bounded by SPEC's ~30 s). */
const KEY_CACHE_TTL_MS = 5_000;

/** Opens the configured KV: a file (directory created), `:memory:`, a URL, or the platform default. */
export async function openKv(config: Pick<Config, "kvPath">): Promise<Deno.Kv> {
  const path = config.kvPath;
  if (path && path !== ":memory:" && !/^https?:\/\//.test(path)) {
    const dir = path.replace(/[^/]*$/, "");
    if (dir) await Deno.mkdir(dir, { recursive: true });
  }
  return await Deno.openKv(path);
}

/** The background jobs `JOBS` names, over `kv`. */
export function createJobs(kv: Deno.Kv, config: Pick<Config, "jobs">, now = Date.now): Jobs {
  return config.jobs === "table" ? new TableJobs(kv, { now }) : new QueueJobs(kv);
}

/** Builds every dependency over an open KV. */
export async function buildDeps(
  kv: Deno.Kv,
  config: Config,
  overrides: Partial<Pick<Deps, "fetch" | "now">> = {},
): Promise<Deps> {
  const base = {
    kv,
    config,
    budgets: new LimitBudgets(),
    secret: await loadSecret(kv, config.secret),
    fetch: overrides.fetch ?? globalThis.fetch.bind(globalThis),
    now: overrides.now ?? Date.now,
  };
  const deps = {
    ...base,
    storage: createStorage(config, base.secret, base.now),
    keyCache: new TtlCache(KEY_CACHE_TTL_MS, 10_000, base.now),
    formWorkspaces: new Map(),
    reads: new KvReads(kv),
    limits: new LimitSpends(base),
    jobs: createJobs(kv, config, base.now),
  } as Deps;
  deps.writer = new SubmissionWriter(deps);
  return deps;
}
