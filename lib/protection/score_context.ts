/**
 * Spam scoring at write time. The submission writer scores each new submission against
 * the marks (sender, value digest, time) of the form's previous submissions, and its
 * content, and stores it with its final verdict in the same commit, with that context in
 * its signals; when a second opinion (Akismet) is on, the commit stores a first verdict
 * from the signals alone and the scoring job (jobs/score_batch.ts) writes the final one.
 * The writer keeps the latest marks in memory while its cached sequence proves that no other
 * process wrote to the form; otherwise it reads them here, as one forward range.
 * @module
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "@/lib/canonical.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import { ipIdentity } from "@/lib/ratelimit/rate_limit.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import { siteOf } from "./pitch.ts";
import { RECENT_WINDOW_MS, scoreSpam, type SpamInput, type SpamVerdict } from "./score.ts";
import type { AkismetAnswer } from "./akismet.ts";
import { scoreSubmission } from "@/lib/spam/submission_text.ts";
import type { SpamModel } from "@/lib/spam/model.ts";

/** How many earlier submissions of the form the rate and duplicate signals look at. */
export const CONTEXT_SIZE = 100;

/** What the scorer keeps of each submission to compare later ones with. */
export interface SubmissionMark {
  id: string;
  /** Rate-limit identity of a browser sender (IP, IPv6 /64); "" for key-authenticated. */
  who: string;
  /** SHA-256 (16 hex) of the canonical field values: equal values, equal digest. */
  digest: string;
  /** Creation time, ms. */
  at: number;
}

/** A mark with its submission's number. */
export type NumberedMark = SubmissionMark & { number: number };

/** A numbered mark, always built with the same shape (the scorer walks many of them). */
export function numbered(m: SubmissionMark, number: number): NumberedMark {
  return { id: m.id, who: m.who, digest: m.digest, at: m.at, number };
}

/** The scorer's mark of a submission. */
export function markOf(s: Submission): SubmissionMark {
  return {
    id: s.id,
    who: s.signals.ip && !s.signals.via_key ? ipIdentity(s.signals.ip) : "",
    digest: createHash("sha256").update(canonicalJson(s.fields)).digest("hex").slice(0, 16),
    at: Date.parse(s.created_at),
  };
}

/**
 * The marks of the CONTEXT_SIZE numbers up to and including `newest`, oldest first:
 * `known` (marks kept from earlier, possibly empty) extended by a read of the numbers
 * after its last one, or all read when nothing is known or the gap is wider than the
 * context. Deleted submissions took their marks with them.
 */
export async function catchUpMarks(
  kv: Deno.Kv,
  formId: string,
  mode: Mode,
  known: NumberedMark[] | null,
  newest: number,
): Promise<NumberedMark[]> {
  const last = known?.at(-1)?.number ?? 0;
  const from = known && newest - last < CONTEXT_SIZE
    ? last + 1
    : Math.max(newest - CONTEXT_SIZE + 1, 1);
  const kept = from === last + 1 && known ? known : [];
  if (from > newest) return kept;
  const found = await withKvRetry(async () => {
    const out: NumberedMark[] = [];
    // A forward range costs KV a fraction of a reverse walk.
    const iter = kv.list<SubmissionMark>({
      start: keys.submissionByNumber(formId, mode, from),
      end: keys.submissionByNumber(formId, mode, newest + 1),
    }, { batchSize: CONTEXT_SIZE });
    for await (const e of iter) out.push(numbered(e.value, e.key[3] as number));
    return out;
  });
  return [...kept, ...found].slice(-CONTEXT_SIZE);
}

/**
 * The scoring marks of a form's latest submissions, oldest first, that its commits score new
 * submissions against, each new one added as it is scored. Only the last CONTEXT_SIZE count,
 * and only those within RECENT_WINDOW_MS; marks are indexed by sender and by values, so a
 * lookup reads only the marks that match. A writer keeps one per form and mode across its
 * commits: `settle` after a commit succeeds, `revert` drops what a failed one added.
 */
export class MarkWindow {
  #marks: NumberedMark[] = [];
  #byWho = new Map<string, number[]>();
  #byDigest = new Map<string, number[]>();
  /** How many of the marks are settled (see revert). */
  #settled = 0;

  constructor(earlier: readonly NumberedMark[]) {
    for (const m of earlier) this.push(m);
    this.#settled = this.#marks.length;
  }

  /** Appends a newer mark. */
  push(m: NumberedMark): void {
    const i = this.#marks.push(m) - 1;
    if (m.who) positionsOf(this.#byWho, m.who).push(i);
    positionsOf(this.#byDigest, m.digest).push(i);
  }

  /**
   * What the earlier marks say about a new one whose mark is `mark`: how many came from the
   * same identity in the recent window, and whether one had the same values.
   */
  contextOf(mark: SubmissionMark): { recent: number; duplicate: boolean } {
    const from = Math.max(0, this.#marks.length - CONTEXT_SIZE);
    const since = mark.at - RECENT_WINDOW_MS;
    const counts = (i: number) => i >= from && this.#marks[i].at > since;
    let recent = 0;
    if (mark.who) { for (const i of this.#byWho.get(mark.who) ?? []) if (counts(i)) recent++; }
    const duplicate = (this.#byDigest.get(mark.digest) ?? []).some(counts);
    return { recent, duplicate };
  }

  /** The last CONTEXT_SIZE marks, oldest first. */
  get kept(): NumberedMark[] {
    return this.#marks.slice(-CONTEXT_SIZE);
  }

  /**
   * Keeps the marks added so far (their commit succeeded); past twice CONTEXT_SIZE marks,
   * only the last CONTEXT_SIZE are kept.
   */
  settle(): void {
    if (this.#marks.length >= 2 * CONTEXT_SIZE) {
      const kept = this.kept;
      this.#marks = [];
      this.#byWho.clear();
      this.#byDigest.clear();
      for (const m of kept) this.push(m);
    }
    this.#settled = this.#marks.length;
  }

  /** Drops the marks added since the last settle (their commit did not happen). */
  revert(): void {
    while (this.#marks.length > this.#settled) {
      const m = this.#marks.pop()!;
      // Its positions are the last ones of their lists: marks are added in order.
      if (m.who) this.#byWho.get(m.who)!.pop();
      this.#byDigest.get(m.digest)!.pop();
    }
  }
}

function positionsOf(index: Map<string, number[]>, id: string): number[] {
  let list = index.get(id);
  if (!list) index.set(id, list = []);
  return list;
}

/**
 * The behavioural scorer's input for a stored submission: its signals, including the
 * context the writer recorded (`signals.recent`, `signals.duplicate`).
 */
export function spamInputOf(form: Form, sub: Submission): SpamInput {
  const urlFields = new Set<string>();
  const ownSites = new Set<string>();
  for (const f of form.fields) {
    if (f.type === "url") urlFields.add(f.name);
    const value = sub.fields[f.name];
    const site = f.type === "email" && typeof value === "string" ? siteOf(value) : "";
    if (site) ownSites.add(site);
  }
  const origin = sub.signals.origin ? siteOf(sub.signals.origin) : "";
  if (origin) ownSites.add(origin);
  return {
    signals: sub.signals,
    fields: sub.fields,
    urlFields,
    ownSites,
    recentFromIdentity: sub.signals.recent ?? 0,
    duplicate: sub.signals.duplicate ?? false,
    ...(form.spam_filter ? { scoreThresholds: form.spam_filter } : {}),
  };
}

/**
 * The verdict on a stored submission: its signals (with the context the writer recorded)
 * and, given a model, what the content model reads in its text, with Akismet's answer when
 * it gave one. Pure.
 */
export function scoreStored(
  form: Form,
  sub: Submission,
  model?: SpamModel,
  secondOpinion?: AkismetAnswer | null,
): SpamVerdict {
  const input = spamInputOf(form, sub);
  if (model) {
    input.content = scoreSubmission(model, form, sub.fields);
    if (model.thresholds) input.contentThresholds = model.thresholds;
  }
  if (secondOpinion) input.secondOpinion = secondOpinion;
  return scoreSpam(input);
}

/**
 * Scores a new submission whose mark is `mark` against the marks of the submissions
 * before it (`earlier`), recording that context in its signals first; with `model`, its
 * content counts too (the final verdict), else the verdict is the signals' alone (a first
 * one, which the scoring job replaces).
 */
export function scoreInContext(
  sub: Submission,
  mark: SubmissionMark,
  earlier: MarkWindow,
  form: Form,
  model?: SpamModel,
): SpamVerdict {
  const { recent, duplicate } = earlier.contextOf(mark);
  // Kept only when they say something (most submissions have neither).
  if (recent || duplicate) sub.signals = { ...sub.signals, recent, duplicate };
  return scoreStored(form, sub, model);
}
