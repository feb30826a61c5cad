/**
 * Browsing one submission in the admin: its newer and older neighbours in the list's order
 * (same mode and status filter), and read/unread marks shared by the workspace's team.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys, type Mode, type StatusBucket } from "@/lib/kv/keys.ts";
import { getManyChunked, withKvRetry } from "@/lib/kv/kv.ts";
import { indexedId } from "./indexes.ts";
import { indexPrefix } from "./query.ts";

/** The ids next to submission number `n` in the newest-first list; absent at either end. */
export async function neighbours(
  deps: Pick<Deps, "kv">,
  formId: string,
  mode: Mode,
  bucket: StatusBucket,
  n: number,
): Promise<{ newer?: string; older?: string }> {
  const prefix = indexPrefix(formId, mode, bucket);
  const first = async (sel: Deno.KvListSelector, reverse: boolean) => {
    for await (const e of deps.kv.list(sel, { limit: 1, reverse })) return indexedId(e.value);
    return undefined;
  };
  const [newer, older] = await Promise.all([
    first({ prefix, start: [...prefix, n + 1] }, false),
    first({ prefix, end: [...prefix, n] }, true),
  ]);
  return { newer, older };
}

/** Marks a submission read (or unread again). */
export async function setRead(
  deps: Pick<Deps, "kv">,
  formId: string,
  id: string,
  read: boolean,
): Promise<void> {
  const key = keys.submissionRead(formId, id);
  await withKvRetry(async () => {
    if (read) await deps.kv.set(key, true);
    else await deps.kv.delete(key);
  });
}

/** Which of `ids` have been opened. */
export async function readIds(
  deps: Pick<Deps, "kv">,
  formId: string,
  ids: string[],
): Promise<Set<string>> {
  const entries = await getManyChunked(deps.kv, ids.map((id) => keys.submissionRead(formId, id)));
  return new Set(ids.filter((_, i) => entries[i].value !== null));
}
