/**
 * A write buffer in front of a KV store, for the scale rows' bulk load only: code that writes
 * through `kv.atomic()` (bench/seed.ts and the index functions it calls) runs unchanged, but
 * each commit lands in memory; `flush` then writes what was buffered in key order, in commits
 * as large as KV takes. A B-tree insert in key order touches a few pages per commit, where the
 * same writes in submission order touch a page per search token: the stored keys and values
 * are the same, the load is many times faster. Not atomic across a flush's commits, so only
 * for a KV file no one else reads while it loads.
 * @module
 */
import { MAX_KEY_BYTES, MAX_MUTATIONS } from "@/lib/kv/batcher.ts";

type Pending = { key: Deno.KvKey; set?: unknown; sum?: bigint; del?: true };

/** Value bytes one flush commit carries at most (KV takes 800 KiB in all). */
const FLUSH_VALUE_BYTES = 400 * 1024;
const enc = new TextEncoder();

/** Bytes a key takes, near enough to keep a commit under KV's key limit. */
function keyBytes(key: Deno.KvKey): number {
  let n = 0;
  for (const p of key) n += typeof p === "string" ? enc.encode(p).length + 2 : 10;
  return n;
}

/** Bytes a value takes, near enough to keep a commit under KV's size limit. */
function valueBytes(v: unknown): number {
  if (typeof v === "string") return v.length * 3;
  if (v === null || typeof v !== "object") return 16;
  return JSON.stringify(v).length * 2;
}

const TYPE_ORDER: Record<string, number> = {
  object: 0,
  string: 1,
  number: 2,
  bigint: 3,
  boolean: 4,
};

/** KV's key order (Uint8Array, string, number, bigint, boolean; then by value). */
export function compareKeys(a: Deno.KvKey, b: Deno.KvKey): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    // Within one type `<` orders as KV does (byte arrays aside, which these keys never hold).
    const x = a[i] as string | number, y = b[i] as string | number;
    const tx = TYPE_ORDER[typeof x], ty = TYPE_ORDER[typeof y];
    if (tx !== ty) return tx - ty;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return a.length - b.length;
}

/** Buffers commits made through `kv` (get reads the buffer first); `flush` writes them. */
export class KvBuffer {
  #pending = new Map<string, Pending>();
  /** What a flush under way is writing (still read from here until it is written). */
  #flushing: Map<string, Pending> | null = null;
  /** Mutations the buffered commits asked for, by key family (the key's first part). */
  readonly mutations: Record<string, number> = {};
  /** Commits made through the buffer. */
  commits = 0;
  /** Commits `flush` made on the store. */
  flushCommits = 0;
  /** The face the loading code is given: `get` and `atomic` only. */
  readonly kv: Deno.Kv;

  constructor(readonly store: Deno.Kv) {
    const get = async (key: Deno.KvKey) => {
      const id = JSON.stringify(key);
      const p = this.#pending.get(id) ?? this.#flushing?.get(id);
      if (p && "set" in p) return { key, value: p.set, versionstamp: "0".repeat(20) };
      if (p) throw new Error(`a buffered ${p.del ? "delete" : "sum"} is read back: ${key}`);
      return await store.get(key);
    };
    this.kv = { get, atomic: () => this.#op() } as unknown as Deno.Kv;
  }

  #count(key: Deno.KvKey): void {
    const family = String(key[0]);
    this.mutations[family] = (this.mutations[family] ?? 0) + 1;
  }

  #op(): Deno.AtomicOperation {
    const ops: Pending[] = [];
    const op = {
      check: () => op,
      set: (key: Deno.KvKey, value: unknown) => {
        this.#count(key);
        ops.push({ key, set: value });
        return op;
      },
      sum: (key: Deno.KvKey, n: bigint) => {
        this.#count(key);
        ops.push({ key, sum: n });
        return op;
      },
      delete: (key: Deno.KvKey) => {
        this.#count(key);
        ops.push({ key, del: true });
        return op;
      },
      commit: () => {
        this.commits++;
        for (const o of ops) this.#apply(o);
        return Promise.resolve({ ok: true, versionstamp: "0".repeat(20) });
      },
    };
    return op as unknown as Deno.AtomicOperation;
  }

  #apply(o: Pending): void {
    const id = JSON.stringify(o.key);
    const known = this.#pending.get(id);
    if (o.sum !== undefined) {
      if (known && known.sum === undefined) {
        throw new Error(`a sum after a set or delete of one key: ${id}`);
      }
      // KV sums wrap at 2^64 (a negative delta is its complement).
      this.#pending.set(id, { key: o.key, sum: ((known?.sum ?? 0n) + o.sum) % 2n ** 64n });
    } else this.#pending.set(id, o);
  }

  /**
   * Writes everything buffered so far to the store in key order. The buffer takes new
   * commits meanwhile (reads see both), so loading goes on while the disk works; one flush
   * at a time.
   */
  async flush(): Promise<void> {
    if (this.#flushing) throw new Error("one flush at a time");
    const batch = this.#pending;
    this.#pending = new Map();
    this.#flushing = batch;
    try {
      await this.#write([...batch.values()].sort((a, b) => compareKeys(a.key, b.key)));
    } finally {
      this.#flushing = null;
    }
  }

  async #write(all: Pending[]): Promise<void> {
    let op = this.store.atomic();
    let n = 0, keys = 0, values = 0;
    const commit = async () => {
      if (!n) return;
      const res = await op.commit();
      if (!res.ok) throw new Error("a flush commit failed");
      this.flushCommits++;
      op = this.store.atomic();
      n = keys = values = 0;
    };
    for (const p of all) {
      const k = keyBytes(p.key);
      const v = "set" in p ? valueBytes(p.set) : 16;
      if (
        n + 1 > MAX_MUTATIONS || keys + k > MAX_KEY_BYTES * 0.9 || values + v > FLUSH_VALUE_BYTES
      ) {
        await commit();
      }
      if (p.del) op.delete(p.key);
      else if (p.sum !== undefined) op.sum(p.key, p.sum);
      else op.set(p.key, p.set);
      n++;
      keys += k;
      values += v;
    }
    await commit();
  }
}
