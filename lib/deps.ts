/**
 * The dependencies every lib function takes first. Built only by the composition root
 * (`main.ts`, `cli.ts`) or by tests.
 * @module
 */
import type { Config } from "./config.ts";
import type { Storage } from "@/lib/uploads/storage/storage.ts";
import type { CachedKey } from "@/lib/keys/api_keys.ts";
import type { SubmissionWriter } from "@/lib/submissions/writer.ts";
import type { KvReads } from "@/lib/kv/reads.ts";
import type { LimitSpends } from "@/lib/ratelimit/spends.ts";
import type { LimitBudgets } from "@/lib/ratelimit/budgets.ts";
import type { TtlCache } from "./ttl_cache.ts";
import type { Jobs } from "@/lib/jobs/types.ts";

/** Everything a request, a job or a CLI command needs. */
export interface Deps {
  kv: Deno.Kv;
  /** Coalesced reads of `kv` for hot paths (see kv/reads.ts). */
  reads: KvReads;
  config: Config;
  /** HMAC/JWT signing key material, from `SECRET` or generated once and kept in KV. */
  secret: Uint8Array;
  /** Serialises and groups submission commits per form (see submissions/writer.ts). */
  writer: SubmissionWriter;
  /** Groups the rate-limit spends of other requests into few commits (see ratelimit/spends.ts). */
  limits: LimitSpends;
  /**
   * Rate-limit budgets' locks and last-known entries: every commit spending a budget holds
   * its lock from read to commit, so this process's commits never race each other
   * (see ratelimit/budgets.ts).
   */
  budgets: LimitBudgets;
  /** Object storage for uploaded files (local disk or S3). */
  storage: Storage;
  /** Outgoing HTTP (CAPTCHA siteverify); replaceable in tests. */
  fetch: typeof fetch;
  /**
   * Authenticated API key entries (with their workspace) by key digest, kept a few seconds
   * (a revocation here drops its entry at once; other instances see it within the TTL, far
   * inside SPEC's 30 s).
   */
  keyCache: TtlCache<CachedKey>;
  /**
   * The workspace id of each form seen lately (a form never changes workspace), so a form
   * and its workspace can be read in one operation (see forms/forms.ts).
   */
  formWorkspaces: Map<string, string>;
  /** Background jobs (KV queue or job table, by `JOBS`; see jobs/types.ts). */
  jobs: Jobs;
  /** Current time in ms; replaceable in tests. */
  now: () => number;
}
