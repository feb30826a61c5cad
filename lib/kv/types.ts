/**
 * Shared types of KV access: the coalesced reader that `Deps` names (kv/reads.ts).
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
