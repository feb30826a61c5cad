/**
 * `JOBS=queue`: background jobs on Deno KV queues (`op.enqueue`, `kv.listenQueue`, and
 * `keysIfUndelivered` after KV's last retry). Needs a KV that carries queues: a local file
 * or `:memory:` (KV Connect has none). A second process on the same file sees new
 * messages only on KV's periodic rescan (about 60 s).
 * @module
 */
import { enqueueJob, type Job } from "./queue.ts";
import type { EnqueueOptions, JobContext, JobRunner, Jobs } from "./types.ts";
import { traced } from "@/lib/observe/trace.ts";

const NO_CONTEXT: JobContext = { complete: () => {} };

/** Jobs on the KV queue of `kv`. */
export class QueueJobs implements Jobs {
  readonly mode = "queue";
  #kv: Deno.Kv;
  #started = false;
  #listening = false;
  #running = new Set<Promise<void>>();

  #backoff?: number[];
  #now: () => number;

  /**
   * `backoffSchedule`: the retry delays of jobs enqueued without one (default: KV's);
   * `now`: the service's clock (the heartbeat's).
   */
  constructor(kv: Deno.Kv, options: { backoffSchedule?: number[]; now?: () => number } = {}) {
    this.#kv = kv;
    this.#backoff = options.backoffSchedule;
    this.#now = options.now ?? Date.now;
  }

  /** Adds the message to `op`; it lands under `undelivered_jobs` if every attempt fails. */
  enqueue(op: Deno.AtomicOperation, job: Job, options: EnqueueOptions = {}): void {
    enqueueJob(op, traced(job), { backoffSchedule: this.#backoff, ...options });
  }

  /** Listens on the queue until the KV closes; a handler's throw makes KV retry. */
  start(handler: JobRunner): void {
    if (this.#started) throw new Error("jobs already started");
    this.#started = true;
    this.#listening = true;
    this.#kv.listenQueue((msg) => {
      const run = handler(msg, NO_CONTEXT);
      const tracked = run.catch(() => {}).finally(() => this.#running.delete(tracked));
      this.#running.add(tracked);
      return run;
    }).catch(() => {
      // The KV closed under the listener: nothing more to deliver.
    }).finally(() => (this.#listening = false));
  }

  /**
   * Now while the queue listener runs (KV delivers without a tick of ours; a stalled queue
   * shows as the oldest due job's age, see observe/backlog.ts), else null.
   */
  heartbeat(): number | null {
    return this.#listening ? this.#now() : null;
  }

  /** Waits for the running handlers (KV stops delivering when it closes). */
  async stop(): Promise<void> {
    while (this.#running.size) await Promise.all([...this.#running]);
  }
}
