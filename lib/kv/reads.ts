/**
 * Coalesced KV reads. Deno KV serves one operation at a time per database, so under load
 * every request's reads queue behind each other; a `getMany` of ten keys costs about what
 * one `get` does. This batcher keeps a few reads in flight and packs everything that
 * arrives meanwhile into `getMany` calls of up to ten distinct keys (requests for the
 * same key, like a popular form, share one slot). Each caller still gets one consistent
 * snapshot of its own keys: a request's keys always travel in the same `getMany`.
 * @module
 */
import { Batcher, type Split } from "./batcher.ts";
import { withKvRetry } from "./kv.ts";
import type { KvReader } from "./types.ts";

/** KV's limit of keys per `getMany`. */
const KEYS_PER_READ = 10;
/** Reads kept in flight at once; more would only queue inside KV. */
const MAX_IN_FLIGHT = 2;

interface Request {
  keys: Deno.KvKey[];
  /** The keys JSON-encoded, once (the batcher compares them often). */
  ids: string[];
  resolve: (entries: Deno.KvEntryMaybe<unknown>[]) => void;
  reject: (err: unknown) => void;
}

/** Batches concurrent reads of one KV into few `getMany` calls. */
export class KvReads implements KvReader {
  #queue = new Batcher<Request>({
    take,
    run: (batch) => this.#read(batch),
    failed: (batch, err) => batch.forEach((req) => req.reject(err)),
    concurrency: MAX_IN_FLIGHT,
  });

  constructor(readonly kv: Deno.Kv) {}

  /**
   * Reads up to ten keys as one consistent snapshot (more than ten are read in chunks,
   * each consistent on its own, as with `getMany`).
   */
  getMany<T extends unknown[]>(
    keys: Deno.KvKey[],
  ): Promise<{ [K in keyof T]: Deno.KvEntryMaybe<T[K]> }> {
    return new Promise((resolve, reject) => {
      const ids = keys.map((k) => JSON.stringify(k));
      this.#queue.push({ keys, ids, resolve: resolve as Request["resolve"], reject });
    });
  }

  /** Reads one key. */
  async get<T>(key: Deno.KvKey): Promise<Deno.KvEntryMaybe<T>> {
    const [entry] = await this.getMany<[T]>([key]);
    return entry;
  }

  async #read(batch: Request[]): Promise<void> {
    const byId = new Map<string, Deno.KvKey>();
    for (const req of batch) req.keys.forEach((k, i) => byId.set(req.ids[i], k));
    const ids = [...byId.keys()];
    try {
      const entries = new Map<string, Deno.KvEntryMaybe<unknown>>();
      for (let i = 0; i < ids.length; i += KEYS_PER_READ) {
        const chunk = ids.slice(i, i + KEYS_PER_READ);
        const read = await withKvRetry(() => this.kv.getMany(chunk.map((id) => byId.get(id)!)));
        chunk.forEach((id, j) => entries.set(id, read[j]));
      }
      for (const req of batch) req.resolve(req.ids.map((id) => entries.get(id)!));
    } catch (err) {
      for (const req of batch) req.reject(err);
    }
  }
}

/**
 * Takes queued requests, in order, whose distinct keys fit one `getMany` (an oversized one
 * alone). Stops at the first that does not fit once the read is full, so a long queue is
 * not rescanned for every read.
 */
function take(pending: Request[]): Split<Request> {
  const batch: Request[] = [];
  const ids = new Set<string>();
  let i = 0;
  for (; i < pending.length && ids.size < KEYS_PER_READ; i++) {
    const req = pending[i];
    let fresh = 0;
    for (const id of req.ids) if (!ids.has(id)) fresh++;
    if (batch.length && ids.size + fresh > KEYS_PER_READ) break;
    batch.push(req);
    for (const id of req.ids) ids.add(id);
  }
  return { batch, rest: pending.slice(i) };
}
