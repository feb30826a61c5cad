/**
 * `learn_label`: an admin marked a submission spam or not spam; this job moves the
 * workspace's token statistics (lib/spam/learn.ts) to match, in one checked commit with
 * the submission's `spam_learned` record: the old label's tokens are subtracted, the new
 * one's added. The submission's current status decides (a later re-label brings its own
 * job), so jobs delivered twice or out of order end in the same statistics.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { getForm } from "@/lib/forms/forms.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import type { Submission } from "@/lib/schemas.ts";
import {
  applyLabel,
  emptyStats,
  labelOfStatus,
  learnableTokens,
  type Learned,
  type SpamStats,
} from "@/lib/spam/learn.ts";
import { submissionText } from "@/lib/spam/submission_text.ts";
import { akismetParams, akismetSubmit } from "@/lib/protection/akismet.ts";
import { type StoredVerdict, withVerdict } from "@/lib/submissions/records.ts";
import { tokenize } from "@/lib/spam/tokens.ts";
import type { Job } from "./queue.ts";
import type { JobContext } from "./types.ts";

/** Handler of `learn_label`. */
export async function learnLabel(
  deps: Deps,
  job: Extract<Job, { type: "learn_label" }>,
  ctx: JobContext,
): Promise<void> {
  const subKey = keys.submission(job.form_id, job.submission_id);
  const learnedKey = keys.spamLearned(job.workspace_id, job.submission_id);
  const statsKey = keys.spamStats(job.workspace_id);
  const form = await getForm(deps, job.form_id);
  let reported: Submission | null = null;
  await commitWithRetry(deps.kv, async (op) => {
    reported = null;
    const [record, verdict, learned, stats] = await withKvRetry(() =>
      deps.kv.getMany<[Submission, StoredVerdict, Learned, SpamStats]>([
        subKey,
        keys.submissionVerdict(job.form_id, job.submission_id),
        learnedKey,
        statsKey,
      ])
    );
    const sub = record.value ? withVerdict(record.value, verdict.value) : null;
    if (sub && (!sub.spam?.manual || labelOfStatus(sub.status) !== job.label)) {
      return null; // Re-labelled since: that label's own job decides.
    }
    if (learned.value?.label === job.label) return null; // Already learned.
    let next = stats.value ?? emptyStats();
    if (learned.value) next = applyLabel(next, learned.value, -1);
    let tokens = learned.value?.tokens;
    if (!tokens) {
      if (!sub || !form) return null; // Gone before anything was learned.
      const t = submissionText(form, sub.fields);
      tokens = learnableTokens(tokenize(t.subject ? `${t.subject}\n${t.text}` : t.text));
    }
    const now: Learned = { label: job.label, tokens };
    next = applyLabel(next, now, 1);
    op.check(learned, stats).set(learnedKey, now).set(statsKey, next);
    ctx.complete(op);
    reported = sub;
    return true;
  });
  deps.writer.learned(job.workspace_id);
  // Akismet learns the label too (best effort: its failure never undoes ours).
  const cfg = deps.config.akismet;
  if (cfg && form && reported) {
    const params = akismetParams(cfg, deps.config.baseUrl, form, reported);
    if (!await akismetSubmit(cfg, job.label, params)) {
      console.error(JSON.stringify({ level: "warn", msg: "akismet did not take a label" }));
    }
  }
}
