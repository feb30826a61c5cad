/**
 * `JOBS=table`: background jobs in a KV table, for KV backends without queues (KV Connect,
 * several machines on one self-hosted denokv). A job is one entry keyed by the time it is
 * due, `["jobs_due", dueAt, id]`, written in the caller's atomic operation. Any instance
 * claims due entries in one checked commit that re-keys each at its lease end (so a job
 * whose holder died is due again then), runs them, and deletes them on success (or the
 * handler's own last commit does, see JobContext). A failure is rescheduled on the job's
 * backoff schedule; after the last attempt the job moves to `undelivered_jobs`.
 * Instances poll every POLL_MS (jittered); a job enqueued by a process that runs jobs is
 * written already leased to it and run as soon as the caller's commit shows.
 * @module
 */
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { Batcher } from "@/lib/kv/batcher.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { Job } from "./queue.ts";
import type { EnqueueOptions, JobContext, JobRunner, Jobs } from "./types.ts";
import { traced } from "@/lib/observe/trace.ts";
import { logger, outsideRequest } from "@/lib/observe/log.ts";

/** A job table entry. */
export interface JobEntry {
  id: string;
  job: Job;
  /** Attempts started so far (counted when claimed). */
  attempts: number;
  /** Retry delays (ms); absent: DEFAULT_BACKOFF. */
  backoff?: number[];
}

/** KV queues' default retry schedule, kept for the table (about 96 s in all). */
export const DEFAULT_BACKOFF = [100, 1_000, 5_000, 30_000, 60_000];
/** Jobs claimed per commit, one check each (10: what every store allows, kv/batcher.ts). */
const CLAIM_MAX = 10;
/** Finished jobs' entries deleted per commit at most (deletes need no checks). */
const DELETES_PER_COMMIT = 500;
/** Jobs this process runs at once at most. */
const MAX_RUNNING = 40;
/** First look for a job this process enqueued; doubled up to LOCAL_MAX_WAIT_MS per look. */
const WAKE_MS = 5;
const LOCAL_MAX_WAIT_MS = 200;
/** A job this process enqueued that has not appeared by then is left to the claims. */
const LOCAL_GIVE_UP_MS = 5_000;

/** Tunables (tests shorten them). */
export interface TableJobsOptions {
  /** How long a claim holds a job before another instance may take it (default 30 s). */
  leaseMs?: number;
  /** Poll interval; each wait is jittered between 0.5x and 1.5x (default 500 ms). */
  pollMs?: number;
  now?: () => number;
  /** Retry delays of jobs enqueued without a schedule (default DEFAULT_BACKOFF). */
  backoffSchedule?: number[];
}

type Claimed = { key: Deno.KvKey; versionstamp: string; value: JobEntry };
/** A job this process enqueued, leased to itself, waiting for the caller's commit. */
type Local = { key: Deno.KvKey; since: number; wait: number; nextAt: number };

/** Jobs in a KV table with leases. */
export class TableJobs implements Jobs {
  readonly mode = "table";
  #kv: Deno.Kv;
  #leaseMs: number;
  #pollMs: number;
  #now: () => number;
  #backoff?: number[];
  #handler: JobRunner | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #timerAt = Infinity;
  #passing: Promise<void> | null = null;
  #local = new Set<Local>();
  #adopting: Promise<void> | null = null;
  #running = new Set<Promise<void>>();
  /** Finished jobs' entries, deleted many per commit. */
  #finished = new Batcher<Deno.KvKey>({
    take: (keys) => ({
      batch: keys.slice(0, DELETES_PER_COMMIT),
      rest: keys.slice(DELETES_PER_COMMIT),
    }),
    run: (batch) => this.#delete(batch),
    // Left in the table, each is run again (idempotently) once its lease ends.
    failed: (_, err) =>
      log("job delete failed", { error: err instanceof Error ? err.name : "unknown" }),
  });
  #beat: number | null = null;

  constructor(kv: Deno.Kv, options: TableJobsOptions = {}) {
    this.#kv = kv;
    this.#leaseMs = options.leaseMs ?? 30_000;
    this.#pollMs = options.pollMs ?? 500;
    this.#now = options.now ?? Date.now;
    this.#backoff = options.backoffSchedule;
  }

  /**
   * Writes the job's entry in `op`. When this process runs jobs and the job is due now, the
   * entry is written already leased to this process (first attempt counted), which runs it
   * as soon as the caller's commit shows, with no claim commit; should this process die,
   * the lease ends and any instance claims it.
   */
  enqueue(op: Deno.AtomicOperation, job: Job, options: EnqueueOptions = {}): void {
    const id = newId("job");
    const entry: JobEntry = { id, job: traced(job), attempts: 0 };
    const backoff = options.backoffSchedule ?? this.#backoff;
    if (backoff) entry.backoff = backoff;
    const now = this.#now();
    if (!this.#handler || options.delay) {
      op.set(keys.jobDue(now + (options.delay ?? 0), id), entry);
      return;
    }
    const key = keys.jobDue(now + this.#leaseMs, id);
    op.set(key, { ...entry, attempts: 1 });
    const t = performance.now();
    this.#local.add({ key, since: t, wait: WAKE_MS, nextAt: t + WAKE_MS });
    if (!this.#adopting) {
      // Its jobs are not the enqueuing request's: they log without its id.
      this.#adopting = outsideRequest(() => this.#adoptLocal()).finally(() =>
        this.#adopting = null
      );
    }
  }

  /** Starts polling the table and running due jobs with `handler`. */
  start(handler: JobRunner): void {
    if (this.#handler) throw new Error("jobs already started");
    this.#handler = handler;
    this.#beat = this.#now();
    this.#schedule(0);
  }

  /** The start of the last pass over the table or the end of the last job; null when stopped. */
  heartbeat(): number | null {
    return this.#handler ? this.#beat : null;
  }

  /** Stops polling and waits for the running jobs and their deletions. */
  async stop(): Promise<void> {
    this.#handler = null;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#passing;
    await this.#adopting;
    while (this.#running.size) await Promise.all([...this.#running]);
    await this.#finished.drained();
  }

  #schedule(ms: number): void {
    if (!this.#handler) return;
    const at = performance.now() + ms;
    if (this.#timer !== null && this.#timerAt <= at) return;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#timerAt = Infinity;
      if (!this.#passing) this.#passing = this.#pass().finally(() => (this.#passing = null));
      else this.#schedule(1);
    }, ms);
  }

  /** One look at the table: claims what is due (up to the free slots) and starts it. */
  async #pass(): Promise<void> {
    this.#beat = this.#now();
    const room = Math.min(CLAIM_MAX, MAX_RUNNING - this.#running.size);
    if (room <= 0) return; // A finishing job schedules the next pass.
    let claimed: Claimed[] | null = [];
    try {
      claimed = await this.#claim(room);
    } catch (err) {
      log("job claim failed", { error: err instanceof Error ? err.name : "unknown" });
    }
    if (claimed === null) {
      // Another instance claimed some of the same entries: look again shortly.
      this.#schedule(Math.random() * 20);
      return;
    }
    for (const c of claimed) this.#launch(c);
    if (claimed.length === room && room === CLAIM_MAX) this.#schedule(0);
    else this.#schedule(this.#pollMs * (0.5 + Math.random()));
  }

  #launch(c: Claimed): void {
    const run = this.#run(c).finally(() => {
      this.#beat = this.#now();
      this.#running.delete(run);
      if (this.#running.size === MAX_RUNNING - 1) this.#schedule(0);
    });
    this.#running.add(run);
  }

  /**
   * Runs the jobs this process enqueued once their entries show (the caller committed),
   * looking at each after 5, 10, 20 ... ms (at most 200 ms apart), ten per read.
   */
  async #adoptLocal(): Promise<void> {
    while (this.#handler && this.#local.size) {
      const now = performance.now();
      let next = Infinity;
      const due: Local[] = [];
      for (const l of this.#local) {
        if (l.nextAt <= now && due.length < 10) due.push(l);
        next = Math.min(next, l.nextAt);
      }
      if (!due.length) {
        await new Promise((r) => setTimeout(r, next - now));
        continue;
      }
      let found: Deno.KvEntryMaybe<JobEntry>[] = [];
      try {
        found = await withKvRetry(() => this.#kv.getMany<JobEntry[]>(due.map((l) => l.key)));
      } catch {
        // Looked at again on the next round.
      }
      due.forEach((l, i) => {
        const e = found[i];
        if (e?.versionstamp) {
          this.#local.delete(l);
          this.#launch({ key: l.key, versionstamp: e.versionstamp, value: e.value });
        } else if (now - l.since > LOCAL_GIVE_UP_MS) {
          // Its operation failed, or committed very late: then its lease end makes it due.
          this.#local.delete(l);
        } else {
          l.wait = Math.min(l.wait * 2, LOCAL_MAX_WAIT_MS);
          l.nextAt = now + l.wait;
        }
      });
    }
    this.#local.clear();
  }

  /**
   * Claims up to `n` due jobs in one commit (each checked, re-keyed at its lease end with
   * one more attempt counted); a job whose attempts are all spent moves to undelivered.
   * Returns null when another instance won a race for any of them.
   */
  async #claim(n: number): Promise<Claimed[] | null> {
    const now = this.#now();
    const due: Deno.KvEntry<JobEntry>[] = [];
    const iter = this.#kv.list<JobEntry>({
      start: keys.jobsDue(),
      end: [...keys.jobsDue(), now + 1],
    }, { limit: n });
    await withKvRetry(async () => {
      for await (const e of iter) due.push(e);
    });
    if (!due.length) return [];
    const op = this.#kv.atomic();
    const runs: { key: Deno.KvKey; value: JobEntry }[] = [];
    for (const e of due) {
      op.check(e).delete(e.key);
      const v = e.value;
      if (v.attempts > (v.backoff ?? DEFAULT_BACKOFF).length) {
        // Its last attempt died with its process.
        op.set(keys.undelivered(v.id), v.job);
        continue;
      }
      const next = { ...v, attempts: v.attempts + 1 };
      const key = keys.jobDue(now + this.#leaseMs, v.id);
      op.set(key, next);
      runs.push({ key, value: next });
    }
    const res = await withKvRetry(() => op.commit());
    if (!res.ok) return null;
    return runs.map((r) => ({ ...r, versionstamp: res.versionstamp }));
  }

  async #run(c: Claimed): Promise<void> {
    let completedInCommit = false;
    const ctx: JobContext = {
      complete: (op) => {
        op.delete(c.key);
        completedInCommit = true;
      },
    };
    try {
      await this.#handler!(c.value.job, ctx);
    } catch (err) {
      await this.#failed(c, err);
      return;
    }
    // complete() went into an operation that may not have committed: delete what is left.
    if (completedInCommit && !(await withKvRetry(() => this.#kv.get(c.key))).versionstamp) return;
    this.#finished.push(c.key);
  }

  /** Deletes finished jobs' entries in one commit. */
  async #delete(keys: Deno.KvKey[]): Promise<void> {
    const op = this.#kv.atomic();
    for (const key of keys) op.delete(key);
    await withKvRetry(() => op.commit());
  }

  /** Reschedules a failed job on its backoff, or moves it to undelivered after the last. */
  async #failed(c: Claimed, err: unknown): Promise<void> {
    const v = c.value;
    const backoff = v.backoff ?? DEFAULT_BACKOFF;
    const op = this.#kv.atomic().check(c).delete(c.key);
    const last = v.attempts > backoff.length;
    if (last) op.set(keys.undelivered(v.id), v.job);
    else op.set(keys.jobDue(this.#now() + backoff[v.attempts - 1], v.id), v);
    log("job failed", {
      type: v.job.type,
      attempt: v.attempts,
      undelivered: last,
      error: err instanceof Error ? err.name : "unknown",
    });
    try {
      // A failed check: its lease ended and another instance holds it now.
      await withKvRetry(() => op.commit());
    } catch {
      // Left as claimed: due again when the lease ends.
    }
  }
}

function log(msg: string, fields: Record<string, unknown>): void {
  logger.warn(msg, fields);
}
