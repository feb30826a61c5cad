/**
 * Group commit of submissions. Every submit of a form (and mode) joins that form's queue;
 * while one commit is in flight the next requests gather, then go out together in ONE
 * `kv.atomic()` holding, per submission, the record, its indexes, its number from the
 * form's sequence, its first spam score and status (see protection/score_context.ts), the
 * counters, the idempotency record, the rate-limit spend, any attachment writes, and one
 * scoring job for the whole batch (jobs/score_batch.ts writes the final verdicts). Under load
 * a commit waits a few milliseconds to gather more (see LINGER_MS). Clients never retry
 * against each other: a form's commits are serialised in the process, so are commits
 * spending one rate-limit budget (a key's workspace across its forms, see ratelimit/budgets.ts),
 * and conflicts with other processes are retried here, with a bound.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { delay, getManyChunked, withKvRetry } from "@/lib/kv/kv.ts";
import { limitKey, planSpends } from "@/lib/ratelimit/rate_limit.ts";
import type { Submission } from "@/lib/schemas.ts";
import { CounterDeltas, indexCreated } from "./indexes.ts";
import {
  catchUpMarks,
  CONTEXT_SIZE,
  markOf,
  numbered,
  scoreInContext,
} from "@/lib/protection/score_context.ts";
import { addEmailIndex } from "@/lib/privacy/email_index.ts";
import { privateWho, storedSignals } from "@/lib/privacy/ip.ts";
import { IDEMPOTENCY_TTL_MS, type IdempotencyRecord } from "./idempotency.ts";
import {
  applyRiders,
  asClientError,
  budgetIds,
  type CreatedBody,
  forget,
  type FormQueue,
  idempotencyKey,
  type Item,
  MAX_BACKOFF_MS,
  MAX_CHAIN,
  quotaCap,
  quotaKey,
  RETRY_WINDOW_MS,
  seenUnchanged,
  settleIdempotent,
  settleQuota,
  settleRefused,
  type SubmissionDraft,
  takeBatch,
  type WriteOutcome,
} from "./batch.ts";
import type { SubmissionWriterPort } from "./types.ts";
import { inSpan } from "@/lib/observe/trace.ts";

export type { CreatedBody, Rider, SubmissionDraft, WriteOutcome } from "./types.ts";

/** Form queues kept at most, idle ones included (each holds up to CONTEXT_SIZE marks). */
const MAX_QUEUES = 256;
/**
 * The linger of a loaded form queue: when LINGER_FROM to LINGER_UNTIL submissions gathered
 * during a commit, the next commit waits LINGER_MS for more (a lone submission never waits).
 */
const LINGER_MS = 4;
const LINGER_FROM = 4;
const LINGER_UNTIL = 32;

/** How one commit attempt ended, with the items still open. */
interface Attempt {
  outcome: "settled" | "conflict" | "rebuild";
  live: Item[];
}

/** Per-process group committer; one per composition root. */
export class SubmissionWriter implements SubmissionWriterPort {
  #queues = new Map<string, FormQueue>();
  #deps: Omit<Deps, "writer">;
  /** Commits made and submissions stored, for benchmarks. */
  readonly stats = { commits: 0, submissions: 0, conflicts: 0 };

  constructor(deps: Omit<Deps, "writer">) {
    this.#deps = deps;
  }

  /** Queues a submission; resolves once it is durably stored (or replayed). */
  write(draft: SubmissionDraft): Promise<WriteOutcome> {
    const qid = `${draft.form.id}/${draft.mode}`;
    let q = this.#queues.get(qid);
    if (q) {
      // Most recently used last, so the idle ones evicted first are the longest unused.
      this.#queues.delete(qid);
    } else {
      q = { pending: [], running: false, seq: null, chain: [], marks: null };
    }
    this.#queues.set(qid, q);
    const promise = new Promise<WriteOutcome>((resolve, reject) => {
      const item: Item = {
        draft,
        id: newId("sub"),
        settled: false,
        resolve: (o) => {
          item.settled = true;
          resolve(o);
        },
        reject: (e) => {
          item.settled = true;
          reject(e);
        },
      };
      q.pending.push(item);
    });
    if (!q.running) this.#drain(qid, q);
    return promise;
  }

  async #drain(qid: string, q: FormQueue): Promise<void> {
    q.running = true;
    try {
      for (let first = true; q.pending.length; first = false) {
        // Under load (several arrived during the last commit) wait a moment for more: fewer,
        // larger commits, each with one scoring job, cost KV and the jobs less per submission.
        const waiting = q.pending.length;
        if (!first && waiting >= LINGER_FROM && waiting < LINGER_UNTIL) await delay(LINGER_MS);
        await this.#commitIsolating(q, takeBatch(q));
      }
    } finally {
      q.running = false;
      if (q.pending.length) this.#drain(qid, q);
      else this.#evictIdle();
    }
  }

  /**
   * Forgets the least recently used idle queues past MAX_QUEUES. An idle queue is kept so
   * the form's next submission finds its sequence and scoring marks without reading them
   * (a sequence moved meanwhile by another process fails the commit's check, which reads
   * it again).
   */
  #evictIdle(): void {
    for (const [qid, q] of this.#queues) {
      if (this.#queues.size <= MAX_QUEUES) return;
      if (!q.running && q.pending.length === 0) this.#queues.delete(qid);
    }
  }

  /**
   * Commits a batch; when the commit fails for a reason other than a conflict (a value KV
   * refuses), retries its unsettled items one by one so only the offending one fails.
   */
  async #commitIsolating(q: FormQueue, batch: Item[]): Promise<void> {
    try {
      await this.#commitBatch(q, batch);
    } catch (err) {
      forget(q);
      const open = batch.filter((i) => !i.settled);
      if (open.length === 1 || batch.length === 1) {
        for (const item of open) item.reject(asClientError(err));
        return;
      }
      for (const item of open) await this.#commitIsolating(q, [item]);
    }
  }

  async #commitBatch(q: FormQueue, batch: Item[]): Promise<void> {
    let live = batch;
    const giveUpAt = performance.now() + RETRY_WINDOW_MS;
    for (let attempt = 0; live.length && (!attempt || performance.now() < giveUpAt); attempt++) {
      // The batch's budgets are this process's to spend until the attempt is over.
      const release = await this.#deps.budgets.acquire(budgetIds(live));
      let step: Attempt;
      try {
        step = await this.#attempt(q, live);
      } finally {
        release();
      }
      live = step.live;
      if (step.outcome === "settled") return;
      if (step.outcome === "rebuild") {
        attempt--;
        continue;
      }
      await delay(Math.random() * Math.min(2 ** attempt, MAX_BACKOFF_MS));
    }
    for (const item of live) item.reject(errors.unavailable());
  }

  /**
   * One attempt at committing the batch's open items: settles them (stored, replayed or
   * refused), or reports a conflict (read again, then retry) or items a rider refused
   * (rebuild the operation without them).
   */
  async #attempt(q: FormQueue, items: Item[]): Promise<Attempt> {
    const { kv } = this.#deps;
    let live = items;
    const first = live[0].draft;
    // Everything the batch depends on, in one read (KV operations are the cost to count).
    const read = await this.#readState(q, live);
    if (!q.seq) {
      const seqId = JSON.stringify(keys.submissionSeq(first.form.id, first.mode));
      await this.#adopt(q, read.get(seqId) as Deno.KvEntryMaybe<number>, first);
    }
    const seq = q.seq!;
    const at = this.#deps.now();
    const quota = settleQuota(settleIdempotent(live, read, at), read, at);
    live = quota.items;
    if (!live.length) return { outcome: "settled", live };

    const op = kv.atomic();
    if (quota.check) op.check(quota.check);
    const spends = live.flatMap((i) => i.draft.limits);
    const plan = await planSpends(this.#deps, spends, op, read);
    live = settleRefused(live, plan.allowed);
    const refused = await applyRiders(op, live);
    if (refused.size) {
      // The operation holds the refused items' rider writes: rebuild it without them.
      return { outcome: "rebuild", live: live.filter((i) => !refused.has(i)) };
    }

    op.check(seq);
    const now = this.#deps.now();
    const created = new Date(now).toISOString();
    const month = created.slice(0, 7);
    const counters = new CounterDeltas();
    let number = seq.value ?? 0;
    const results: CreatedBody[] = [];
    const statuses: string[] = [];
    const marks = [...q.marks ?? []];
    for (const item of live) {
      const d = item.draft;
      const sub: Submission = {
        id: item.id,
        form_id: d.form.id,
        workspace_id: d.workspace.id,
        mode: d.mode,
        number: ++number,
        fields: d.fields,
        metadata: d.metadata,
        status: "completed",
        created_at: created,
        files: d.files,
        signals: d.signals,
        ...(d.ownerMail ? { owner_mail: d.ownerMail } : {}),
      };
      const mark = markOf(sub);
      mark.who = privateWho(this.#deps.secret, mark.who); // a digest: no address in the index
      const verdict = scoreInContext(sub, mark, marks, d.form);
      // A clean submission keeps no verdict: there is nothing to show or to explain.
      if (verdict.score > 0) {
        sub.status = verdict.status;
        sub.spam = { score: verdict.score, reasons: verdict.reasons, scored_at: created };
      }
      marks.push(numbered(mark, sub.number));
      sub.signals = storedSignals(d.form, sub.signals); // what the form lets us keep
      addEmailIndex(op, this.#deps.secret, d.form, sub);
      op.set(keys.submission(sub.form_id, sub.id), sub);
      indexCreated(op, counters, sub, mark);
      // Spam (as scored in this commit) does not count toward the quota.
      if (d.mode === "live" && sub.status !== "spam") {
        counters.add(keys.monthlySubmissions(d.workspace.id, month), 1);
      }
      const body: CreatedBody = {
        success: true,
        submission_id: sub.id,
        submission_number: sub.number,
      };
      results.push(body);
      statuses.push(sub.status);
      if (d.idempotency) {
        const rec: IdempotencyRecord = {
          hash: d.idempotency.hash,
          body,
          expires_at: now + IDEMPOTENCY_TTL_MS,
        };
        // No check of its own: idempotency records of a form and mode are written only by
        // these commits, which all check the form's sequence, so a record written since our
        // read makes this commit fail and the retry replays it.
        op.set(keys.idempotency(sub.form_id, d.mode, d.idempotency.key), rec, {
          expireIn: IDEMPOTENCY_TTL_MS,
        });
      }
    }
    counters.applyTo(op);
    op.set(keys.submissionSeq(first.form.id, first.mode), number);
    // One scoring job per group commit: it writes the final verdicts (jobs/score_batch.ts).
    this.#deps.jobs.enqueue(op, {
      type: "score_batch",
      form_id: first.form.id,
      workspace_id: first.workspace.id,
      mode: first.mode,
      ids: live.map((i) => i.id),
    });

    const started = performance.now();
    const res = await inSpan("submissions.group_commit", () => withKvRetry(() => op.commit()), {
      "formwell.submissions": live.length,
    });
    this.#deps.metrics?.commit("submissions", (performance.now() - started) / 1000);
    if (res.ok) {
      q.seq = { key: seq.key, value: number, versionstamp: res.versionstamp };
      q.marks = marks.slice(-CONTEXT_SIZE);
      this.#deps.budgets.remember(plan, res.versionstamp);
      const written = new Set<string>();
      for (const item of live) {
        if (item.draft.idempotency) written.add(item.draft.idempotency.key);
      }
      // Checked against the cached sequence (or its absence): no one wrote in between.
      q.chain.push({ vs: res.versionstamp, idem: written });
      if (q.chain.length > MAX_CHAIN) q.chain.shift();
      this.stats.commits++;
      this.stats.submissions += live.length;
      for (const status of statuses) this.#deps.metrics?.submissions(status);
      live.forEach((item, i) => item.resolve({ replayed: false, body: results[i] }));
      return { outcome: "settled", live };
    }
    // Another instance wrote meanwhile (or, near the monthly cap, a commit of another form).
    // What the commit checked is read again by the retry's one read, after the backoff: the
    // other side keeps committing, and a read taken before the wait would likely fail again.
    this.stats.conflicts++;
    forget(q);
    this.#deps.budgets.forget(plan.states.keys());
    return { outcome: "conflict", live };
  }

  /**
   * Reads, in one `getMany` (chunked past 10 keys), the form's sequence (unless cached),
   * the items' idempotency records (unless the request's own read still holds), the
   * monthly quota counter and the rate-limit states (unless remembered). Returns the
   * entries by JSON-encoded key, remembered ones included.
   */
  async #readState(q: FormQueue, items: Item[]): Promise<Map<string, Deno.KvEntryMaybe<unknown>>> {
    const first = items[0].draft;
    const wanted = new Map<string, Deno.KvKey>();
    const want = (key: Deno.KvKey) => wanted.set(JSON.stringify(key), key);
    const read = new Map<string, Deno.KvEntryMaybe<unknown>>();
    if (!q.seq) want(keys.submissionSeq(first.form.id, first.mode));
    for (const { draft } of items) {
      if (draft.idempotency && !(q.seq && seenUnchanged(q, draft))) want(idempotencyKey(draft));
      for (const spend of draft.limits) {
        const key = limitKey(spend);
        const id = JSON.stringify(key);
        const remembered = this.#deps.budgets.known(id);
        if (remembered) read.set(id, remembered);
        else want(key);
      }
    }
    if (quotaCap(first) !== null) want(quotaKey(first, this.#deps.now()));
    const entries = wanted.size ? await getManyChunked(this.#deps.kv, [...wanted.values()]) : [];
    [...wanted.keys()].forEach((id, i) => read.set(id, entries[i]));
    return read;
  }

  /**
   * Takes a sequence entry just read as the queue's cached one: the chain of commits known
   * to have written nothing else starts there, and the scoring marks catch up to it.
   */
  async #adopt(q: FormQueue, seq: Deno.KvEntryMaybe<number>, d: SubmissionDraft): Promise<void> {
    q.seq = seq;
    q.chain = seq.versionstamp ? [{ vs: seq.versionstamp, idem: new Set() }] : [];
    q.marks = await catchUpMarks(this.#deps.kv, d.form.id, d.mode, q.marks, seq.value ?? 0);
  }
}
