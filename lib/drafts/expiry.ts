/**
 * Draft expiry, ours rather than KV's lazy `expireIn`: every draft has an entry in the
 * `drafts_due` index at the time it is gone, reads refuse it from that time on, and the
 * `drafts_sweep` job deletes what fell due. A periodic timer (Deno.cron in main.ts) enqueues
 * the job through `deps.jobs`, so it runs under either runner (`JOBS=queue` or `table`);
 * each removal is a checked commit, so sweeps on several processes at once remove each
 * draft once. The form's retention job also removes drafts its retention no longer allows.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import type { Form } from "@/lib/schemas.ts";
import { draftExpiry } from "./settings.ts";
import { removeDraft } from "./store.ts";
import type { Draft } from "./types.ts";

/** Index entries one sweep run looks at before it hands over to a fresh job. */
export const SWEEP_PER_RUN = 500;
const CONCURRENCY = 8;

/** Enqueues one `drafts_sweep` job (what the periodic timer does). */
export async function enqueueDraftSweep(deps: Pick<Deps, "kv" | "jobs">): Promise<void> {
  const op = deps.kv.atomic();
  deps.jobs.enqueue(op, { type: "drafts_sweep" });
  const res = await withKvRetry(() => op.commit());
  if (!res.ok) throw new Error("drafts sweep enqueue failed");
}

/** The `drafts_sweep` job: one bounded sweep, then a fresh job while drafts are left due. */
export async function runDraftSweep(deps: Deps): Promise<void> {
  if ((await sweepDrafts(deps)).more) await enqueueDraftSweep(deps);
}

/**
 * Removes up to `limit` drafts that fell due; `removed` counts those this call removed,
 * `more` says the limit cut the walk.
 */
export async function sweepDrafts(
  deps: Pick<Deps, "kv" | "now">,
  limit = SWEEP_PER_RUN,
): Promise<{ removed: number; more: boolean }> {
  const due: Deno.KvKey[] = [];
  const prefix = keys.draftsDue();
  const iter = deps.kv.list({ prefix, end: [...prefix, deps.now() + 1] }, { limit });
  for await (const e of iter) due.push(e.key);
  let removed = 0;
  for (let i = 0; i < due.length; i += CONCURRENCY) {
    const done = await Promise.all(due.slice(i, i + CONCURRENCY).map((k) => removeDue(deps, k)));
    removed += done.filter(Boolean).length;
  }
  return { removed, more: due.length === limit };
}

/** Removes the draft an index entry names when it is due; a stale entry just goes. */
async function removeDue(deps: Pick<Deps, "kv" | "now">, key: Deno.KvKey): Promise<boolean> {
  const [, at, formId, id] = key as [string, number, string, string];
  const done = await commitWithRetry(deps.kv, async (op) => {
    const entry = await deps.kv.get<Draft>(keys.draft(formId, id));
    const d = entry.value;
    if (!d || d.due_at !== at) {
      op.delete(key); // left by a record that is gone or moved
      return false;
    }
    if (d.due_at > deps.now()) return null;
    op.check(entry);
    removeDraft(op, d);
    return true;
  });
  return done === true;
}

/**
 * Removes a form's drafts its current settings no longer allow (a shorter retention or
 * `ttl_days` set after they started); returns how many went.
 */
export async function retainDrafts(deps: Pick<Deps, "kv" | "now">, form: Form): Promise<number> {
  const now = deps.now();
  let removed = 0;
  for await (const e of deps.kv.list<Draft>({ prefix: keys.drafts(form.id) })) {
    if (draftExpiry(form, Date.parse(e.value.created_at)) > now) continue;
    const op = deps.kv.atomic().check(e);
    removeDraft(op, e.value);
    if ((await withKvRetry(() => op.commit())).ok) removed++;
  }
  return removed;
}
