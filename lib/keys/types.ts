/**
 * Shared types of API keys: the caller a key authenticates and the per-process cache of
 * authenticated keys that `Deps` names.
 * @module
 */
import type { ApiKey, Workspace } from "@/lib/schemas.ts";

/** The caller a valid key authenticates. */
export interface KeyAuth {
  key: ApiKey;
  workspace: Workspace;
  mode: "live" | "test";
}

/** An authenticated key kept in the key cache, with its workspace as last read. */
export interface CachedKey {
  entry: Deno.KvEntry<ApiKey>;
  workspace: Workspace;
  /** The key's `last_used_at` in epoch ms (0 when never used), parsed once. */
  usedAt: number;
}

/** Authenticated keys by digest, kept a few seconds (a TtlCache in every process). */
export interface KeyCache {
  get(hash: string): CachedKey | undefined;
  set(hash: string, value: CachedKey): void;
  delete(hash: string): void;
}

/** The value of the by-hash index: the key's id and its workspace's. */
export interface KeyPointer {
  id: string;
  workspace_id: string;
}
