/**
 * Follow-up of a committed batch of submissions: spam scoring. Reads the batch and the
 * compact marks (sender, value digest, time) of the form's recent submissions, scores
 * each unscored one with lib/spam.ts and stores status, score and reasons for those that
 * scored anything, ten per atomic (one check per record), moving the status indexes and
 * counters with them. A clean
 * submission (score 0) is not written: it stays `completed`, so ordinary traffic costs
 * no commit here. Idempotent: a scored submission (or one an admin re-labelled) is left
 * alone, a clean one scores 0 again, and every write is checked against its read.
 * @module
 */
import type { Deps } from "../deps.ts";
import { getForm } from "../forms.ts";
import { keys, type Mode } from "../kv_keys.ts";
import { commitWithRetry, getManyChunked, withKvRetry } from "../kv.ts";
import type { Job } from "../queue.ts";
import type { Submission } from "../schemas.ts";
import { RECENT_WINDOW_MS, scoreSpam, type SpamVerdict } from "../spam.ts";
import {
  CounterDeltas,
  indexStatusChange,
  markOf,
  type SubmissionMark,
} from "../submission_index.ts";

/** How many earlier submissions of the form the rate and duplicate signals look at. */
const CONTEXT_SIZE = 100;
/** Records written per atomic: one check each, KV allows ten. */
const WRITES_PER_COMMIT = 10;

type ScoreJob = Extract<Job, { type: "score_submissions" }>;
/** A mark with the number its key carries. */
type NumberedMark = SubmissionMark & { number: number };

/** Scores each submission of the batch that is not scored yet. */
export async function scoreSubmissions(deps: Deps, job: ScoreJob): Promise<void> {
  const entries = await getManyChunked<Submission>(
    deps.kv,
    job.ids.map((id) => keys.submission(job.form_id, id)),
  );
  const todo = entries.flatMap((e) => e.value && !e.value.spam ? [e.value] : []);
  if (!todo.length) return;
  const form = await getForm(deps, job.form_id);
  const urlFields = new Set(form?.fields.filter((f) => f.type === "url").map((f) => f.name));
  const contexts = new Map<Mode, NumberedMark[]>();
  for (const mode of new Set(todo.map((s) => s.mode))) {
    const newest = Math.max(...todo.filter((s) => s.mode === mode).map((s) => s.number));
    const batch = todo.filter((s) => s.mode === mode).length;
    contexts.set(mode, await recentMarks(deps, job.form_id, mode, newest, batch));
  }
  const toWrite = todo
    .map((sub) => ({ sub, verdict: score(sub, contexts.get(sub.mode) ?? [], urlFields) }))
    .filter((v) => v.verdict.score > 0);
  for (let i = 0; i < toWrite.length; i += WRITES_PER_COMMIT) {
    await writeVerdicts(deps, toWrite.slice(i, i + WRITES_PER_COMMIT));
  }
}

function score(sub: Submission, context: NumberedMark[], urlFields: Set<string>): SpamVerdict {
  // Its own stored mark is usually in the context: no need to hash its values again.
  const mark = context.find((o) => o.number === sub.number && o.id === sub.id) ?? markOf(sub);
  const earlier = context.filter((o) => o.number < sub.number && o.at > mark.at - RECENT_WINDOW_MS);
  return scoreSpam({
    signals: sub.signals,
    fields: sub.fields,
    urlFields,
    recentFromIdentity: mark.who ? earlier.filter((o) => o.who === mark.who).length : 0,
    duplicate: earlier.some((o) => o.digest === mark.digest),
  });
}

/** Stores up to ten verdicts in one atomic, each checked against a fresh read. */
async function writeVerdicts(
  deps: Deps,
  items: { sub: Submission; verdict: SpamVerdict }[],
): Promise<void> {
  await commitWithRetry(deps.kv, async (op) => {
    const entries = await deps.kv.getMany<Submission[]>(
      items.map(({ sub }) => keys.submission(sub.form_id, sub.id)),
    );
    const counters = new CounterDeltas();
    let writes = 0;
    entries.forEach((entry, i) => {
      const current = entry.value;
      // Deleted meanwhile, or scored/overridden by another delivery or an admin.
      if (!current || current.spam) return;
      const { verdict } = items[i];
      op.check(entry);
      indexStatusChange(op, counters, current, verdict.status);
      op.set(
        entry.key,
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
      writes++;
    });
    if (!writes) return null;
    counters.applyTo(op);
    return true;
  });
}

/** The marks of the form's latest submissions (by number) up to and including `newest`. */
async function recentMarks(
  deps: Deps,
  formId: string,
  mode: Mode,
  newest: number,
  extra: number,
): Promise<NumberedMark[]> {
  const limit = CONTEXT_SIZE + extra;
  const from = newest - limit + 1;
  // Numbers are gap-free, so the wanted marks are usually exactly this range, and a forward
  // range read costs KV a fraction of a reverse one (about 1.5 ms against 6 ms for 117).
  // Fewer than that means deletions: then walk back for the full count as before.
  const range = await withKvRetry(async () => {
    const found: NumberedMark[] = [];
    const iter = deps.kv.list<SubmissionMark>({
      start: keys.submissionMark(formId, mode, Math.max(from, 0)),
      end: keys.submissionMark(formId, mode, newest + 1),
    }, { limit, batchSize: 500 });
    for await (const e of iter) found.push({ ...e.value, number: e.key[3] as number });
    return found.reverse();
  });
  if (range.length >= limit || from <= 0) return range;
  return await withKvRetry(async () => {
    const found: NumberedMark[] = [];
    const iter = deps.kv.list<SubmissionMark>({
      prefix: keys.submissionMarks(formId, mode),
      end: keys.submissionMark(formId, mode, newest + 1),
    }, { reverse: true, limit, batchSize: 500 });
    for await (const e of iter) found.push({ ...e.value, number: e.key[3] as number });
    return found;
  });
}
