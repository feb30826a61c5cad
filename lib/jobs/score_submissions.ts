/**
 * Follow-up of a committed batch of submissions: spam scoring. Reads each submission's
 * signals and the form's recent submissions (per-identity rate, duplicates), scores with
 * lib/spam.ts and stores status, score and reasons in one atomic per submission, moving
 * the status indexes and counters with it. Idempotent: a scored submission (or one whose
 * status an admin set) is left alone, and the write is checked against the read.
 * @module
 */
import { canonicalJson } from "../canonical.ts";
import type { Deps } from "../deps.ts";
import { getForm } from "../forms.ts";
import { keys, type Mode } from "../kv_keys.ts";
import { commitWithRetry, getManyChunked, withKvRetry } from "../kv.ts";
import type { Job } from "../queue.ts";
import { ipIdentity } from "../rate_limit.ts";
import type { Submission } from "../schemas.ts";
import { RECENT_WINDOW_MS, scoreSpam } from "../spam.ts";
import { CounterDeltas, indexStatusChange } from "../submission_index.ts";

/** How many earlier submissions of the form the rate and duplicate signals look at. */
const CONTEXT_SIZE = 100;

/** Scores each submission of the batch that is not scored yet. */
export async function scoreSubmissions(
  deps: Deps,
  job: Extract<Job, { type: "score_submissions" }>,
): Promise<void> {
  const entries = await getManyChunked<Submission>(
    deps.kv,
    job.ids.map((id) => keys.submission(job.form_id, id)),
  );
  const todo = entries.flatMap((e) => e.value && !e.value.spam ? [e.value] : []);
  if (!todo.length) return;
  const form = await getForm(deps, job.form_id);
  const urlFields = new Set(form?.fields.filter((f) => f.type === "url").map((f) => f.name));
  const context = new Map<Mode, Submission[]>();
  for (const mode of new Set(todo.map((s) => s.mode))) {
    const newest = Math.max(...todo.filter((s) => s.mode === mode).map((s) => s.number));
    context.set(mode, await recentSubmissions(deps, job.form_id, mode, newest));
  }

  for (const sub of todo) {
    const created = Date.parse(sub.created_at);
    const identity = sub.signals.ip ? ipIdentity(sub.signals.ip) : null;
    const digest = canonicalJson(sub.fields);
    const earlier = (context.get(sub.mode) ?? []).filter((o) =>
      o.number < sub.number && Date.parse(o.created_at) > created - RECENT_WINDOW_MS
    );
    const verdict = scoreSpam({
      signals: sub.signals,
      fields: sub.fields,
      urlFields,
      recentFromIdentity: identity
        ? earlier.filter((o) => o.signals.ip && ipIdentity(o.signals.ip) === identity).length
        : 0,
      duplicate: earlier.some((o) => canonicalJson(o.fields) === digest),
    });
    await commitWithRetry(deps.kv, async (op) => {
      const key = keys.submission(sub.form_id, sub.id);
      const entry = await deps.kv.get<Submission>(key);
      const current = entry.value;
      // Deleted meanwhile, or scored/overridden by another delivery or an admin.
      if (!current || current.spam) return null;
      const counters = new CounterDeltas();
      op.check(entry);
      indexStatusChange(op, counters, current, verdict.status);
      counters.applyTo(op);
      op.set(
        key,
        {
          ...current,
          status: verdict.status,
          spam: {
            score: verdict.score,
            reasons: verdict.reasons,
            scored_at: new Date(deps.now()).toISOString(),
          },
        } satisfies Submission,
      );
      return true;
    });
  }
}

/** The form's latest submissions (by number) up to and including `newest`. */
async function recentSubmissions(
  deps: Deps,
  formId: string,
  mode: Mode,
  newest: number,
): Promise<Submission[]> {
  const ids = await withKvRetry(async () => {
    const found: string[] = [];
    const iter = deps.kv.list<string>({
      prefix: keys.submissionsByNumber(formId, mode),
      end: keys.submissionByNumber(formId, mode, newest + 1),
    }, { reverse: true, limit: CONTEXT_SIZE });
    for await (const e of iter) found.push(e.value);
    return found;
  });
  const records = await getManyChunked<Submission>(
    deps.kv,
    ids.map((id) => keys.submission(formId, id)),
  );
  return records.flatMap((r) => r.value ? [r.value] : []);
}
