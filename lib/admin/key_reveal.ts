/**
 * The raw API key shown once after post/redirect/get: the create POST stores it under a
 * random token for a few minutes, the keys page reads and deletes it in one step.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { randomBase62 } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";

/** How long a created key waits to be shown before it is gone for good. */
export const KEY_REVEAL_MS = 5 * 60 * 1000;

/** What the keys page shows once. */
export interface KeyReveal {
  /** The session that created it: no other session can read it. */
  session_user: string;
  workspace_id: string;
  name: string;
  key: string;
  /** Epoch ms; KV's expireIn deletes lazily, so reads check this too. */
  expires_at?: number;
}

/** Stores a created key for one showing; returns the token for the redirect's query. */
export async function storeKeyReveal(deps: Pick<Deps, "kv">, reveal: KeyReveal): Promise<string> {
  const token = randomBase62(24);
  const expires_at = Date.now() + KEY_REVEAL_MS;
  await deps.kv.set(keys.keyReveal(token), { ...reveal, expires_at }, {
    expireIn: KEY_REVEAL_MS,
  });
  return token;
}

/**
 * The stored key for `token` if this user and workspace created it and nobody read it yet;
 * it is deleted in the same atomic step, so a reload shows it no more.
 */
export async function takeKeyReveal(
  deps: Pick<Deps, "kv">,
  token: string,
  userId: string,
  workspaceId: string,
): Promise<KeyReveal | null> {
  if (!/^[0-9A-Za-z]{1,64}$/.test(token)) return null;
  const entry = await deps.kv.get<KeyReveal>(keys.keyReveal(token));
  const v = entry.value;
  if (
    !v || (v.expires_at ?? 0) < Date.now() || v.session_user !== userId ||
    v.workspace_id !== workspaceId
  ) return null;
  const res = await deps.kv.atomic().check(entry).delete(entry.key).commit();
  return res.ok ? v : null;
}
