/**
 * Retention: a daily sweep enqueues one `retention` job per form; the job deletes the
 * form's submissions older than its `retention_days` (oldest first, through the same
 * delete path as every delete), drops analytics older than the plan's retention, and
 * hands over to a fresh message after a bounded amount of work. Each step is a complete
 * commit, so a crash loses nothing and the next run starts where the data says.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { utcDay, withKvRetry } from "@/lib/kv/kv.ts";
import { getForm, listFormIds } from "@/lib/forms/forms.ts";
import type { SubmissionMark } from "@/lib/protection/score_context.ts";
import type { Form, Workspace } from "@/lib/schemas.ts";
import { deleteSubmissions } from "@/lib/submissions/delete.ts";
import { planOf } from "@/lib/workspaces/plans.ts";
import { auditMutation, sweepAudit } from "./audit.ts";
import { nextRemoval } from "./settings.ts";
import { retainDrafts } from "@/lib/drafts/expiry.ts";

const DAY_MS = 86_400_000;
/** Submissions one delete call takes (10 per commit inside it). */
const CHUNK = 100;
/** Submissions (or analytics keys) one job run handles before re-enqueueing itself. */
export const RETENTION_PER_RUN = 1000;
/** Jobs enqueued per commit by the daily sweep. */
const ENQUEUE_PER_COMMIT = 50;

/** The ids of up to `limit` oldest submissions of a form and mode created before `cutoff`. */
async function expiredIds(
  kv: Deno.Kv,
  formId: string,
  mode: Mode,
  cutoff: number,
  limit: number,
): Promise<string[]> {
  const ids: string[] = [];
  // Numbers grow with time: the walk from the oldest stops at the first one still kept.
  const iter = kv.list<SubmissionMark>({ prefix: keys.submissionsByNumber(formId, mode) }, {
    limit,
    batchSize: limit,
  });
  for await (const e of iter) {
    if (e.value.at >= cutoff) break;
    ids.push(e.value.id);
  }
  return ids;
}

/**
 * One run of a form's retention job: returns whether work is left (the caller enqueues
 * the next run). Deletes at most `perRun` submissions and analytics keys.
 */
export async function retainForm(
  deps: Deps,
  formId: string,
  perRun = RETENTION_PER_RUN,
): Promise<boolean> {
  const form = await getForm(deps, formId);
  if (!form) return false;
  const ws = (await withKvRetry(() => deps.kv.get<Workspace>(keys.workspace(form.workspace_id))))
    .value;
  let budget = perRun;
  await retainDrafts(deps, form);
  const days = form.retention_days ?? null;
  if (days !== null) {
    const cutoff = deps.now() - days * DAY_MS;
    for (const mode of ["live", "test"] as const) {
      let removed = 0;
      while (budget > 0) {
        const ids = await expiredIds(deps.kv, form.id, mode, cutoff, Math.min(CHUNK, budget));
        if (!ids.length) break;
        const r = await deleteSubmissions(deps, form, mode, ids);
        removed += r.deleted;
        budget -= ids.length;
      }
      if (removed) await auditRetention(deps, form.workspace_id, form.id, mode, removed);
    }
  }
  if (ws && budget > 0) {
    const keepDays = planOf(ws.plan).analyticsRetentionDays;
    const firstKept = utcDay(deps.now() - (keepDays - 1) * DAY_MS);
    for (const mode of ["live", "test"] as const) {
      budget -= await dropAnalytics(deps.kv, form.id, mode, firstKept, budget);
    }
  }
  return budget <= 0;
}

/** Deletes up to `limit` analytics counters of a form and mode dated before `firstKept`. */
async function dropAnalytics(
  kv: Deno.Kv,
  formId: string,
  mode: Mode,
  firstKept: string,
  limit: number,
): Promise<number> {
  if (limit <= 0) return 0;
  const prefix = keys.analyticsOf(formId, mode);
  const old: Deno.KvKey[] = [];
  for await (const e of kv.list({ prefix, end: [...prefix, firstKept] }, { limit })) {
    old.push(e.key);
  }
  for (let i = 0; i < old.length; i += 100) {
    const op = kv.atomic();
    for (const k of old.slice(i, i + 100)) op.delete(k);
    const res = await withKvRetry(() => op.commit());
    if (!res.ok) throw new Error("analytics retention commit failed");
  }
  return old.length;
}

async function auditRetention(deps: Deps, wsId: string, formId: string, mode: Mode, n: number) {
  const op = deps.kv.atomic();
  auditMutation(op, deps.now(), {
    workspaceId: wsId,
    action: "submissions.deleted",
    actor: "retention",
    details: { form: formId, mode, count: n, reason: "retention" },
  });
  await withKvRetry(() => op.commit());
}

/** The `retention` job handler: one bounded run, then the next message if work is left. */
export async function runRetention(deps: Deps, formId: string): Promise<void> {
  if (!(await retainForm(deps, formId))) return;
  const op = deps.kv.atomic();
  deps.jobs.enqueue(op, { type: "retention", form_id: formId });
  const res = await withKvRetry(() => op.commit());
  if (!res.ok) throw new Error("re-enqueue of the retention job failed");
}

/**
 * The daily sweep (Deno.cron in main.ts): drops expired audit events and enqueues one
 * retention job per form. Returns how many jobs it enqueued.
 */
export async function dailyRetentionSweep(deps: Deps): Promise<number> {
  let enqueued = 0;
  let pending: string[] = [];
  const flush = async () => {
    const op = deps.kv.atomic();
    for (const id of pending) deps.jobs.enqueue(op, { type: "retention", form_id: id });
    const res = await withKvRetry(() => op.commit());
    if (!res.ok) throw new Error("retention enqueue failed");
    enqueued += pending.length;
    pending = [];
  };
  for await (const e of deps.kv.list<Workspace>({ prefix: keys.workspaces() })) {
    await sweepAudit(deps, e.value.id);
    for (const formId of await listFormIds(deps, e.value.id)) {
      pending.push(formId);
      if (pending.length === ENQUEUE_PER_COMMIT) await flush();
    }
  }
  if (pending.length) await flush();
  return enqueued;
}

/** What the admin shows of a form's retention: its days and when data next goes (or null). */
export async function retentionSummary(
  deps: Pick<Deps, "kv" | "now">,
  form: Form,
): Promise<{ retention_days: number | null; next_removal: string | null }> {
  let oldest: number | null = null;
  for (const mode of ["live", "test"] as const) {
    const first = await withKvRetry(async () => {
      for await (
        const e of deps.kv.list<SubmissionMark>({
          prefix: keys.submissionsByNumber(form.id, mode),
        }, { limit: 1 })
      ) return e.value.at;
      return null;
    });
    if (first !== null && (oldest === null || first < oldest)) oldest = first;
  }
  const at = oldest === null ? null : new Date(oldest).toISOString();
  return {
    retention_days: form.retention_days ?? null,
    next_removal: nextRemoval(form, at, deps.now()),
  };
}
