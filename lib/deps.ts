/**
 * The dependencies every lib function takes first. Built only by the composition root
 * (`main.ts`, `cli.ts`) or by tests. Each per-process part is named by a small interface
 * from a leaf `types.ts`, so nothing this module names imports it back.
 * @module
 */
import type { Config } from "./config.ts";
import type { Storage } from "@/lib/uploads/storage/storage.ts";
import type { KeyCache } from "@/lib/keys/types.ts";
import type { KnownFailures } from "@/lib/protection/types.ts";
import type { SubmissionWriterPort } from "@/lib/submissions/types.ts";
import type { EntryLocks, GroupCommitter, KvReader } from "@/lib/kv/types.ts";
import type { LimitSpender } from "@/lib/ratelimit/types.ts";
import type { Jobs } from "@/lib/jobs/types.ts";
import type { SpamModel } from "@/lib/spam/model.ts";
import type { MetricsPort } from "@/lib/observe/types.ts";

/**
 * Work in flight in this process. Two Deps on one KV stand for two processes: they share
 * nothing of it.
 */
export interface InFlight {
  /** CAPTCHA tokens claimed by a submit still being written, by claim digest. */
  captchaClaims: Map<string, Promise<void>>;
  /** Form posts still running, by form id and idempotency key (a double post waits). */
  posts: Map<string, Promise<unknown>>;
  /** Upload paths attached by a commit being built (two submissions of one group commit). */
  attaching: WeakMap<Deno.AtomicOperation, Set<string>>;
  /** Bytes a commit being built charges to each workspace's storage (group commits). */
  charging: WeakMap<Deno.AtomicOperation, Map<string, number>>;
}

/** Everything a request, a job or a CLI command needs. */
export interface Deps {
  kv: Deno.Kv;
  /** Coalesced reads of `kv` for hot paths (see kv/reads.ts). */
  reads: KvReader;
  config: Config;
  /** HMAC/JWT signing key material, from `SECRET` or generated once and kept in KV. */
  secret: Uint8Array;
  /** Serialises and groups submission commits per form (see submissions/writer.ts). */
  writer: SubmissionWriterPort;
  /** Groups the rate-limit spends of other requests into few commits (see ratelimit/spends.ts). */
  limits: LimitSpender;
  /** Groups independent writes, such as new upload grants, into few commits (kv/group_commits.ts). */
  commits: GroupCommitter;
  /**
   * Locks and last-known entries of the KV entries commits check (rate-limit budgets, feed
   * heads, webhook listeners): a commit holds them from read to commit, so this process's
   * commits never race each other (see kv/entry_locks.ts).
   */
  entryLocks: EntryLocks;
  /** Object storage for uploaded files (local disk or S3). */
  storage: Storage;
  /** Outgoing HTTP (CAPTCHA siteverify); replaceable in tests. */
  fetch: typeof fetch;
  /**
   * Authenticated API key entries (with their workspace) by key digest, kept a few seconds
   * (a revocation here drops its entry at once; other instances see it within the TTL, far
   * inside SPEC's 30 s).
   */
  keyCache: KeyCache;
  /**
   * The workspace id of each form seen lately (a form never changes workspace), so a form
   * and its workspace can be read in one operation (see forms/forms.ts).
   */
  formWorkspaces: Map<string, string>;
  /**
   * Browser senders' protection-failure records by identity, as last read or written here,
   * kept a few seconds (see protection/failures.ts).
   */
  knownFailures: KnownFailures;
  /** Work in flight in this process (see InFlight). */
  inflight: InFlight;
  /** The content spam model, read from its committed file on first use (lib/spam). */
  spamModel: () => Promise<SpamModel>;
  /** Background jobs (KV queue or job table, by `JOBS`; see jobs/types.ts). */
  jobs: Jobs;
  /** Current time in ms; replaceable in tests. */
  now: () => number;
  /** Prometheus counters (lib/observe); absent unless `METRICS_TOKEN` is set. */
  metrics?: MetricsPort;
}
