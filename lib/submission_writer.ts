/**
 * Group commit of submissions. Every submit of a form (and mode) joins that form's queue;
 * while one commit is in flight the next requests gather, then go out together in ONE
 * `kv.atomic()` holding, per submission, the record, its indexes, its number from the
 * form's sequence, the counters, the idempotency record, the rate-limit spend, any
 * attachment writes, and one enqueued follow-up job for the batch. Clients never retry
 * against each other: a form's commits are serialised in the process, and conflicts with
 * other processes are retried here, with a bound.
 * @module
 */
import type { Deps } from "./deps.ts";
import { AppError, errors } from "./errors.ts";
import { newId } from "./ids.ts";
import { keys, type Mode } from "./kv_keys.ts";
import { delay, getManyChunked, u64Value, utcMonth, withKvRetry } from "./kv.ts";
import { planOf } from "./plans.ts";
import { limitKey, type LimitSpend, planSpends } from "./rate_limit.ts";
import type { Form, Status, Submission, SubmissionSignals, Workspace } from "./schemas.ts";
import { CounterDeltas, indexCreated } from "./submission_index.ts";
import { IDEMPOTENCY_TTL_MS, type IdempotencyRecord, replayOrConflict } from "./idempotency.ts";
import { enqueueJob } from "./queue.ts";

/** KV allows 10 checks per atomic operation (remote KV enforces it). */
const MAX_CHECKS = 10;
/** Stay well inside KV's 800 KiB per atomic operation. */
const MAX_BATCH_BYTES = 600 * 1024;
const MAX_BATCH_ITEMS = 64;
const MAX_ATTEMPTS = 25;

/** Everything needed to store one submission. */
export interface SubmissionDraft {
  form: Form;
  workspace: Workspace;
  mode: Mode;
  fields: Record<string, unknown>;
  metadata: Record<string, unknown>;
  files: string[];
  signals: SubmissionSignals;
  status: Status;
  idempotency?: {
    key: string;
    hash: string;
    /**
     * The versionstamp of the form's sequence in the snapshot where the request found no
     * live record under the key. Records are written only by sequence-moving commits, so
     * when every commit since is this writer's own (none wrote the key), the writer need
     * not read the record again.
     */
    seenAt?: string | null;
  };
  limits: LimitSpend[];
  /** Approximate stored size in bytes (for batch sizing). */
  size: number;
  /** Extra writes riding in the same commit (spent CAPTCHA tokens, attached files). */
  riders?: Rider[];
}

/**
 * A write that rides in a submission's commit. `apply` is called on every attempt with
 * fresh reads and may throw an AppError to refuse this submission alone; it adds at most
 * `checks` checks to the operation.
 */
export interface Rider {
  checks: number;
  apply: (op: Deno.AtomicOperation, submissionId: string) => Promise<void>;
}

/** The 201 body of an accepted submission. */
export interface CreatedBody {
  success: true;
  submission_id: string;
  submission_number: number;
}

/** What a write produced: a new submission or the replay of an earlier one. */
export type WriteOutcome = { replayed: false; body: CreatedBody } | {
  replayed: true;
  body: CreatedBody;
};

interface Item {
  draft: SubmissionDraft;
  id: string;
  /** Set once resolved or rejected; a settled item is never written afterwards. */
  settled: boolean;
  resolve: (o: WriteOutcome) => void;
  reject: (e: unknown) => void;
}

interface FormQueue {
  pending: Item[];
  running: boolean;
  seq: Deno.KvEntryMaybe<number> | null;
  /**
   * The sequence's versionstamps since `seq` was last read, each produced by one of this
   * writer's commits checked against the one before (so no other process wrote in between),
   * with the Idempotency-Keys that commit wrote. Cleared whenever `seq` is.
   */
  chain: { vs: string; idem: Set<string> }[];
}

/** Commits remembered in a queue's chain; an older snapshot just reads its record. */
const MAX_CHAIN = 64;

/** Per-process group committer; one per composition root. */
export class SubmissionWriter {
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
    if (!q) {
      q = { pending: [], running: false, seq: null, chain: [] };
      this.#queues.set(qid, q);
    }
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
      while (q.pending.length) {
        await this.#commitIsolating(q, takeBatch(q));
      }
    } finally {
      q.running = false;
      if (q.pending.length === 0) this.#queues.delete(qid);
      else this.#drain(qid, q);
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
      q.seq = null;
      q.chain = [];
      const open = batch.filter((i) => !i.settled);
      if (open.length === 1 || batch.length === 1) {
        for (const item of open) item.reject(asClientError(err));
        return;
      }
      for (const item of open) await this.#commitIsolating(q, [item]);
    }
  }

  async #commitBatch(q: FormQueue, batch: Item[]): Promise<void> {
    const { kv } = this.#deps;
    let live = batch;
    for (let attempt = 0; attempt < MAX_ATTEMPTS && live.length; attempt++) {
      const first = live[0].draft;
      // Everything the batch depends on, in one read (KV operations are the cost to count).
      const read = await this.#readState(q, live);
      let seq = q.seq;
      if (!seq) {
        seq = read.get(
          JSON.stringify(keys.submissionSeq(first.form.id, first.mode)),
        ) as Deno.KvEntryMaybe<number>;
        q.chain = seq.versionstamp ? [{ vs: seq.versionstamp, idem: new Set() }] : [];
      }
      live = this.#settleQuota(this.#settleIdempotent(live, read), read);
      if (!live.length) return;

      const op = kv.atomic();
      const spends = live.flatMap((i) => i.draft.limits);
      const allowed = await planSpends(this.#deps, spends, op, read);
      live = settleRefused(live, allowed);
      const refused = await applyRiders(op, live);
      if (refused.size) {
        // The operation holds the refused items' rider writes: rebuild it without them.
        live = live.filter((i) => !refused.has(i));
        attempt--;
        continue;
      }

      op.check(seq);
      const now = this.#deps.now();
      const created = new Date(now).toISOString();
      const counters = new CounterDeltas();
      let number = seq.value ?? 0;
      const results: CreatedBody[] = [];
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
          status: d.status,
          created_at: created,
          files: d.files,
          signals: d.signals,
        };
        op.set(keys.submission(sub.form_id, sub.id), sub);
        indexCreated(op, counters, sub);
        if (d.mode === "live") {
          counters.add(keys.monthlySubmissions(d.workspace.id, utcMonth(now)), 1);
        }
        const body: CreatedBody = {
          success: true,
          submission_id: sub.id,
          submission_number: sub.number,
        };
        results.push(body);
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
      enqueueJob(op, {
        type: "score_submissions",
        form_id: first.form.id,
        ids: live.map((i) => i.id),
        mode: first.mode,
        last_number: number,
      });

      const res = await withKvRetry(() => op.commit());
      if (res.ok) {
        q.seq = { key: seq.key, value: number, versionstamp: res.versionstamp };
        const written = new Set<string>();
        for (const item of live) {
          if (item.draft.idempotency) written.add(item.draft.idempotency.key);
        }
        if (q.chain.length) q.chain.push({ vs: res.versionstamp, idem: written });
        if (q.chain.length > MAX_CHAIN) q.chain.shift();
        this.stats.commits++;
        this.stats.submissions += live.length;
        live.forEach((item, i) => item.resolve({ replayed: false, body: results[i] }));
        return;
      }
      this.stats.conflicts++;
      q.seq = null;
      q.chain = [];
      await delay(Math.random() * Math.min(2 ** attempt, 100));
    }
    for (const item of live) item.reject(errors.unavailable());
  }

  /**
   * Reads, in one `getMany` (chunked past 10 keys), the form's sequence (unless cached),
   * the items' idempotency records (unless the request's own read still holds), the monthly quota counter and the rate-limit states.
   * Returns the entries by JSON-encoded key.
   */
  async #readState(q: FormQueue, items: Item[]): Promise<Map<string, Deno.KvEntryMaybe<unknown>>> {
    const first = items[0].draft;
    const wanted = new Map<string, Deno.KvKey>();
    const want = (key: Deno.KvKey) => wanted.set(JSON.stringify(key), key);
    if (!q.seq) want(keys.submissionSeq(first.form.id, first.mode));
    for (const { draft } of items) {
      if (draft.idempotency && !(q.seq && seenUnchanged(q, draft))) want(idempotencyKey(draft));
      for (const spend of draft.limits) want(limitKey(spend));
    }
    if (quotaCap(first) !== null) want(quotaKey(first, this.#deps.now()));
    const entries = await getManyChunked(this.#deps.kv, [...wanted.values()]);
    return new Map([...wanted.keys()].map((id, i) => [id, entries[i]]));
  }

  /**
   * Resolves items whose Idempotency-Key already has a live stored result (an expired one
   * still lingering, KV expiry being lazy, counts as none); returns the rest.
   */
  #settleIdempotent(items: Item[], read: ReadonlyMap<string, Deno.KvEntryMaybe<unknown>>): Item[] {
    const settled = new Set<Item>();
    for (const item of items) {
      if (!item.draft.idempotency) continue;
      const entry = read.get(JSON.stringify(idempotencyKey(item.draft))) as
        | Deno.KvEntryMaybe<IdempotencyRecord>
        | undefined;
      const rec = entry?.value;
      if (!rec || rec.expires_at <= this.#deps.now()) continue;
      settled.add(item);
      try {
        item.resolve({ replayed: true, body: replayOrConflict(rec, item.draft.idempotency!.hash) });
      } catch (err) {
        item.reject(err);
      }
    }
    return items.filter((i) => !settled.has(i));
  }

  /** Refuses live submissions past the plan's monthly quota. */
  #settleQuota(items: Item[], read: ReadonlyMap<string, Deno.KvEntryMaybe<unknown>>): Item[] {
    const first = items[0]?.draft;
    const cap = first ? quotaCap(first) : null;
    if (!first || cap === null) return items;
    let used = u64Value(read.get(JSON.stringify(quotaKey(first, this.#deps.now())))?.value);
    return items.filter((item) => {
      if (used < cap) {
        used++;
        return true;
      }
      item.reject(
        new AppError(
          429,
          "quota_exceeded",
          `This form's workspace reached its ${cap} submissions this month.`,
        ),
      );
      return false;
    });
  }
}

/**
 * Whether a draft's request saw the sequence at a versionstamp of the queue's chain and no
 * commit since wrote its key: then its record is still absent (any other writer would have
 * moved the sequence, which the commit's check of the cached sequence catches).
 */
function seenUnchanged(q: FormQueue, d: SubmissionDraft): boolean {
  const seen = d.idempotency?.seenAt;
  if (!seen) return false;
  for (let j = q.chain.length - 1; j >= 0; j--) {
    if (q.chain[j].vs === seen) return true;
    if (q.chain[j].idem.has(d.idempotency!.key)) return false;
  }
  return false;
}

function idempotencyKey(d: SubmissionDraft): Deno.KvKey {
  return keys.idempotency(d.form.id, d.mode, d.idempotency!.key);
}

/** The monthly quota of a draft's workspace, or null when unlimited or in test mode. */
function quotaCap(d: SubmissionDraft): number | null {
  return d.mode === "live" ? planOf(d.workspace.plan).submissionsPerMonth : null;
}

function quotaKey(d: SubmissionDraft, now: number): Deno.KvKey {
  return keys.monthlySubmissions(d.workspace.id, utcMonth(now));
}

/** KV's own size refusals are the client's oversized submission (413), not a server error. */
function asClientError(err: unknown): unknown {
  const msg = err instanceof Error ? err.message : "";
  return /too large|too big|size limit|exceeds/i.test(msg)
    ? errors.payloadTooLarge("The submission is too large to store.")
    : err;
}

/** Applies every item's riders; rejects and returns the items a rider refused. */
async function applyRiders(op: Deno.AtomicOperation, items: Item[]): Promise<Set<Item>> {
  const refused = new Set<Item>();
  for (const item of items) {
    try {
      for (const rider of item.draft.riders ?? []) await rider.apply(op, item.id);
    } catch (err) {
      item.reject(err);
      refused.add(item);
    }
  }
  return refused;
}

function settleRefused(items: Item[], allowed: boolean[]): Item[] {
  let cursor = 0;
  return items.filter((item) => {
    const n = item.draft.limits.length;
    const ok = allowed.slice(cursor, cursor + n).every(Boolean);
    cursor += n;
    if (!ok) item.reject(errors.rateLimited());
    return ok;
  });
}

const NO_IDS: ReadonlySet<string> = new Set();

/**
 * Takes the next batch: as many pending items as fit the check, size and count bounds.
 * A second item with an Idempotency-Key already in the batch waits for the next batch,
 * where it finds the first one's record and replays it.
 */
function takeBatch(q: FormQueue): Item[] {
  const batch: Item[] = [];
  const rest: Item[] = [];
  const idemKeys = new Set<string>();
  let checks = 1; // the sequence
  let bytes = 0;
  // The batch's distinct rate-limit keys (one check each), kept as it grows.
  const limitIds = new Set<string>();
  for (const item of q.pending) {
    const d = item.draft;
    const idem = d.idempotency?.key;
    const extra = (d.riders ?? []).reduce((n, r) => n + r.checks, 0);
    const fresh = d.limits.length
      ? new Set(d.limits.map((s) => JSON.stringify(limitKey(s))).filter((id) => !limitIds.has(id)))
      : NO_IDS;
    const fits = batch.length === 0 ||
      (batch.length < MAX_BATCH_ITEMS &&
        checks + extra + limitIds.size + fresh.size <= MAX_CHECKS &&
        bytes + d.size <= MAX_BATCH_BYTES && !(idem && idemKeys.has(idem)));
    if (!fits) {
      rest.push(item);
      continue;
    }
    batch.push(item);
    checks += extra;
    bytes += d.size;
    for (const id of fresh) limitIds.add(id);
    if (idem) idemKeys.add(idem);
  }
  q.pending = rest;
  return batch;
}
