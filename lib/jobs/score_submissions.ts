/**
 * Follow-up of a committed batch of submissions: spam scoring. Reads the form's recent
 * submissions (the batch is among them), scores each unscored one with lib/spam.ts and
 * stores status, score and reasons for those that scored anything, ten per atomic (one
 * check per record), moving the status indexes and counters with them. A clean
 * submission (score 0) is not written: it stays `completed`, so ordinary traffic costs
 * no commit here. Idempotent: a scored submission (or one an admin re-labelled) is left
 * alone, a clean one scores 0 again, and every write is checked against its read.
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
import { RECENT_WINDOW_MS, scoreSpam, type SpamVerdict } from "../spam.ts";
import { CounterDeltas, indexStatusChange } from "../submission_index.ts";

/** How many earlier submissions of the form the rate and duplicate signals look at. */
const CONTEXT_SIZE = 100;
/** Records written per atomic: one check each, KV allows ten. */
const WRITES_PER_COMMIT = 10;

type ScoreJob = Extract<Job, { type: "score_submissions" }>;

/** Scores each submission of the batch that is not scored yet. */
export async function scoreSubmissions(deps: Deps, job: ScoreJob): Promise<void> {
  const context = job.mode && job.last_number
    ? await recentSubmissions(deps, job.form_id, job.mode, job.last_number, job.ids.length)
    : [];
  const byId = new Map(context.map((s) => [s.id, s]));
  const missing = job.ids.filter((id) => !byId.has(id));
  if (missing.length) {
    // Older jobs carry no mode: read the batch itself, then its context.
    const read = await getManyChunked<Submission>(
      deps.kv,
      missing.map((id) => keys.submission(job.form_id, id)),
    );
    for (const e of read) if (e.value) byId.set(e.value.id, e.value);
  }
  const todo = job.ids.flatMap((id) => {
    const s = byId.get(id);
    return s && !s.spam ? [s] : [];
  });
  if (!todo.length) return;
  const form = await getForm(deps, job.form_id);
  const urlFields = new Set(form?.fields.filter((f) => f.type === "url").map((f) => f.name));
  const contexts = new Map<Mode, Submission[]>();
  for (const mode of new Set(todo.map((s) => s.mode))) {
    const newest = Math.max(...todo.filter((s) => s.mode === mode).map((s) => s.number));
    contexts.set(
      mode,
      mode === job.mode && context.length
        ? context
        : await recentSubmissions(deps, job.form_id, mode, newest, 0),
    );
  }
  const verdicts = todo.map((sub) => ({
    sub,
    verdict: score(sub, contexts.get(sub.mode) ?? [], urlFields),
  }));
  const toWrite = verdicts.filter((v) => v.verdict.score > 0);
  for (let i = 0; i < toWrite.length; i += WRITES_PER_COMMIT) {
    await writeVerdicts(deps, toWrite.slice(i, i + WRITES_PER_COMMIT));
  }
}

function score(sub: Submission, context: Submission[], urlFields: Set<string>): SpamVerdict {
  const created = Date.parse(sub.created_at);
  const identity = sub.signals.ip ? ipIdentity(sub.signals.ip) : null;
  const digest = canonicalJson(sub.fields);
  const earlier = context.filter((o) =>
    o.number < sub.number && Date.parse(o.created_at) > created - RECENT_WINDOW_MS
  );
  return scoreSpam({
    signals: sub.signals,
    fields: sub.fields,
    urlFields,
    recentFromIdentity: identity
      ? earlier.filter((o) => o.signals.ip && ipIdentity(o.signals.ip) === identity).length
      : 0,
    duplicate: earlier.some((o) => canonicalJson(o.fields) === digest),
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

/** The form's latest submissions (by number) up to and including `newest`. */
async function recentSubmissions(
  deps: Deps,
  formId: string,
  mode: Mode,
  newest: number,
  extra: number,
): Promise<Submission[]> {
  const ids = await withKvRetry(async () => {
    const found: string[] = [];
    const iter = deps.kv.list<string>({
      prefix: keys.submissionsByNumber(formId, mode),
      end: keys.submissionByNumber(formId, mode, newest + 1),
    }, { reverse: true, limit: CONTEXT_SIZE + extra });
    for await (const e of iter) found.push(e.value);
    return found;
  });
  const records = await getManyChunked<Submission>(
    deps.kv,
    ids.map((id) => keys.submission(formId, id)),
  );
  return records.flatMap((r) => r.value ? [r.value] : []);
}
