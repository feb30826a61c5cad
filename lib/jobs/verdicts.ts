/**
 * The verdicts of one verdict run (jobs/score_batch.ts): each submission's final verdict
 * (protection/score_context.ts `scoreStored`, with Akismet's answer when it is on), and the
 * groups one verdict commit can hold.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { CommitBudget } from "@/lib/kv/batcher.ts";
import { searchCost } from "@/lib/search/entries.ts";
import { type AkismetAnswer, akismetCheck, akismetParams } from "@/lib/protection/akismet.ts";
import { scoreStored } from "@/lib/protection/score_context.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import type { SpamModel } from "@/lib/spam/model.ts";

/**
 * Stay well inside KV's 1000 mutations per atomic operation (a submission's verdict takes
 * four at most: its verdict key, its status index out and in, its feed event).
 */
const MAX_COMMIT_SUBS = 200;

/** Each submission with its final verdict applied (status, reasons, `scored_at`). */
export function verdictsOf(
  deps: Deps,
  form: Form,
  subs: Submission[],
  model: SpamModel,
  opinions: ReadonlyMap<string, AkismetAnswer | null>,
): [Submission, Submission][] {
  const at = new Date(deps.now()).toISOString();
  const out: [Submission, Submission][] = [];
  for (const s of subs) {
    const v = scoreStored(form, s, model, opinions.get(s.id));
    const after: Submission = { ...s, status: v.status, scored_at: at };
    // A clean submission keeps no verdict: there is nothing to show or to explain.
    if (v.score > 0) {
      after.spam = { score: v.score, reasons: v.reasons, scored_at: at };
      if (v.content) after.spam.content = v.content;
    } else delete after.spam;
    out.push([s, after]);
  }
  return out;
}

/**
 * Asks Akismet (when `AKISMET_KEY` is set) about the submissions it was not asked about yet,
 * a few at a time; a failed call leaves null (the local verdict stands).
 */
export async function askAkismet(
  deps: Deps,
  form: Form,
  subs: Submission[],
  opinions: Map<string, AkismetAnswer | null>,
): Promise<void> {
  const cfg = deps.config.akismet;
  if (!cfg) return;
  const ask = subs.filter((s) => !opinions.has(s.id));
  for (let i = 0; i < ask.length; i += AKISMET_PARALLEL) {
    const round = await Promise.all(
      ask.slice(i, i + AKISMET_PARALLEL).map(async (s) => {
        const answer = await akismetCheck(cfg, akismetParams(cfg, deps.config.baseUrl, form, s));
        opinions.set(s.id, answer);
        return answer;
      }),
    );
    // Down, slow or refusing the key for a whole round: the rest go without it.
    if (round.every((a) => a === null)) {
      for (const s of ask.slice(i + AKISMET_PARALLEL)) opinions.set(s.id, null);
      return;
    }
  }
}

/** Akismet calls one verdict run makes at once. */
const AKISMET_PARALLEL = 8;

/** Splits verdicts into groups one verdict commit can hold. */
export function chunked(scored: [Submission, Submission][]): [Submission, Submission][][] {
  const chunks: [Submission, Submission][][] = [[]];
  let budget = new CommitBudget({ items: MAX_COMMIT_SUBS });
  for (const pair of scored) {
    // The verdict key, index keys and the feed event (which repeats the verdict): V8
    // serializes at most two bytes per UTF-16 unit of the verdict's JSON text; 1 KiB covers
    // the keys, the status and the event's other fields.
    const size = JSON.stringify(pair[1].spam ?? null).length * 4 + 1024;
    // A status change re-sets the submission's search entries (search/entries.ts).
    const moved = pair[0].status !== pair[1].status;
    const search = moved ? searchCost(pair[0]) : null;
    const keys = {
      mutations: 4 + (search ? search.mutations / 2 : 0),
      keyBytes: 4 * 80 + (search ? search.keyBytes / 2 : 0),
    };
    if (!budget.fits(0, size, keys)) {
      chunks.push([]);
      budget = new CommitBudget({ items: MAX_COMMIT_SUBS });
    }
    chunks.at(-1)!.push(pair);
    budget.add(0, size, keys);
  }
  return chunks;
}
