/**
 * Shared types of KV access that `Deps` names: the coalesced reader (kv/reads.ts), the
 * group commit of independent writes (kv/group_commits.ts) and the entry locks
 * (kv/entry_locks.ts).
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

/**
 * Locks on the KV entries this process's commits check, and each entry as last read or left
 * here, by JSON-encoded key (see kv/entry_locks.ts).
 */
export interface EntryLocks {
  /** Holds every entry named until the returned function is called. */
  acquire(ids: Iterable<string>): Promise<() => void>;
  /** The entry this process last read or left at `id`, if it still holds it. */
  known(id: string): Deno.KvEntryMaybe<unknown> | undefined;
  /** Keeps entries just read or written (under their locks). */
  learn(entries: Iterable<[string, Deno.KvEntryMaybe<unknown>]>): void;
  /** Forgets entries another process may have moved. */
  forget(ids: Iterable<string>): void;
  /** Entries locked or waited for. */
  readonly locked: number;
}
