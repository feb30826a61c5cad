/**
 * Shared types of KV access that `Deps` names: the coalesced reader (kv/reads.ts) and the
 * group commit of independent writes (kv/group_commits.ts).
 * @module
 */

/** Reads that share `getMany` calls with other requests' (each caller's keys stay together). */
export interface KvReader {
  /** Up to ten keys as one consistent snapshot (more are read in chunks, like `getMany`). */
  getMany<T extends unknown[]>(
    keys: Deno.KvKey[],
  ): Promise<{ [K in keyof T]: Deno.KvEntryMaybe<T[K]> }>;
  /** One key. */
  get<T>(key: Deno.KvKey): Promise<Deno.KvEntryMaybe<T>>;
}

/** A write that reads nothing of other writes: its checks and mutations, added to `op`. */
export interface GroupWrite {
  /** Checks it adds (an operation holds kv/batcher.ts `maxChecks` of them). */
  checks: number;
  /** About how many bytes its keys and values take. */
  bytes: number;
  /** Adds its checks, mutations and enqueues to `op`; called again if it must go alone. */
  apply: (op: Deno.AtomicOperation) => void;
}

/** Commits independent writes in groups (see kv/group_commits.ts). */
export interface GroupCommitter {
  /** Resolves once `write` is committed; rejects when it cannot be (its own conflict). */
  commit(write: GroupWrite): Promise<void>;
}
