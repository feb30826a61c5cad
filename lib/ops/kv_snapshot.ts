/**
 * Reading a KV's contents for a backup: a local KV file (SQLite) is copied with one
 * `VACUUM INTO` (a single read transaction in WAL mode: a consistent snapshot while the
 * service keeps writing); any other KV (KV Connect, Deno Deploy) is exported entry by entry
 * in a length-prefixed V8 format, since only `list` reaches it. Also reading the queue
 * messages a snapshot holds, so a restore can enqueue them again.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { deserialize, serialize } from "node:v8";
import { Buffer } from "node:buffer";

/** Whether `kvPath` names a local KV file (not `:memory:`, a URL or the platform default). */
export function isLocalKvFile(kvPath: string | undefined): kvPath is string {
  return !!kvPath && kvPath !== ":memory:" && !/^https?:\/\//.test(kvPath);
}

/** Copies the local KV file `kvPath` to `out` as of one instant (`VACUUM INTO`). */
export function snapshotSqlite(kvPath: string, out: string): void {
  const db = new DatabaseSync(kvPath, { readOnly: true, timeout: 10_000 });
  try {
    db.prepare("VACUUM INTO ?").run(out);
  } finally {
    db.close();
  }
}

/** One exported entry: its key, and its value (or the number of a KvU64). */
interface Dumped {
  k: Deno.KvKey;
  v?: unknown;
  u64?: bigint;
}

/** Writes every entry of `kv` to `out` (see module doc); returns how many. */
export async function dumpEntries(kv: Deno.Kv, out: Deno.FsFile): Promise<number> {
  let n = 0;
  for await (const e of kv.list({ prefix: [] }, { batchSize: 500 })) {
    const rec: Dumped = e.value instanceof Deno.KvU64
      ? { k: e.key, u64: e.value.value }
      : { k: e.key, v: e.value };
    const body = serialize(rec);
    const frame = new Uint8Array(4 + body.byteLength);
    new DataView(frame.buffer).setUint32(0, body.byteLength, false);
    frame.set(body, 4);
    let off = 0;
    while (off < frame.byteLength) off += await out.write(frame.subarray(off));
    n++;
  }
  return n;
}

/** The entries of a dump made by {@linkcode dumpEntries}, in order. */
export function* readDump(bytes: Uint8Array): Generator<{ key: Deno.KvKey; value: unknown }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let off = 0; off < bytes.byteLength;) {
    const len = view.getUint32(off, false);
    const rec = deserialize(Buffer.from(bytes.subarray(off + 4, off + 4 + len))) as Dumped;
    off += 4 + len;
    yield { key: rec.k, value: rec.u64 !== undefined ? new Deno.KvU64(rec.u64) : rec.v };
  }
}

/** A queue message waiting in a snapshot: its payload and when it was due (epoch ms). */
export interface QueuedMessage {
  data: unknown;
  dueAt: number;
}

/** The queue messages (waiting and in flight) of a SQLite KV snapshot. */
export function queuedMessages(snapshotPath: string): QueuedMessage[] {
  const db = new DatabaseSync(snapshotPath, { readOnly: true });
  try {
    const rows = [
      ...db.prepare("SELECT ts AS due, data FROM queue").all(),
      ...db.prepare("SELECT deadline AS due, data FROM queue_running").all(),
    ] as { due: number; data: Uint8Array }[];
    return rows.map((r) => ({ data: deserialize(Buffer.from(r.data)), dueAt: Number(r.due) }));
  } finally {
    db.close();
  }
}

/** Size estimate of one entry in a write (for batching under KV's per-commit limits). */
export function entrySize(key: Deno.KvKey, value: unknown): number {
  const v = value instanceof Deno.KvU64 ? 8 : serialize(value).byteLength;
  return serialize(key).byteLength + v;
}
