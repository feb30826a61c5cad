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
import { keys } from "@/lib/kv/keys.ts";

/** Whether `kvPath` names a local KV file (not `:memory:`, a URL or the platform default). */
export function isLocalKvFile(kvPath: string | undefined): kvPath is string {
  return !!kvPath && kvPath !== ":memory:" && !/^https?:\/\//.test(kvPath);
}

/**
 * Entries never backed up: the one-time reveal store holds raw API keys and webhook secrets
 * for a few minutes, and a backup must not keep them for longer.
 */
export const NOT_BACKED_UP: readonly Deno.KvKey[] = [keys.keyReveals()];

/**
 * Copies the local KV file `kvPath` to `out` as of one instant (`VACUUM INTO`), without the
 * entries {@linkcode NOT_BACKED_UP} and those already expired (KV deletes expired entries
 * lazily); a second VACUUM leaves none of their bytes in the copy's free pages.
 */
export function snapshotSqlite(kvPath: string, out: string, now: number): void {
  const db = new DatabaseSync(kvPath, { readOnly: true, timeout: 10_000 });
  try {
    db.prepare("VACUUM INTO ?").run(out);
  } finally {
    db.close();
  }
  const copy = new DatabaseSync(out);
  try {
    for (const prefix of NOT_BACKED_UP) {
      const bytes = encodeKvKey(prefix);
      copy.prepare("DELETE FROM kv WHERE substr(k, 1, ?) = ?").run(bytes.byteLength, bytes);
    }
    copy.prepare("DELETE FROM kv WHERE expiration_ms >= 0 AND expiration_ms <= ?").run(now);
    copy.exec("VACUUM");
  } finally {
    copy.close();
  }
}

/**
 * The expiry (epoch ms) of each entry of a SQLite KV snapshot by key: a number, `null`
 * for an entry that never expires, `undefined` for a key the snapshot no longer holds.
 */
export function snapshotExpiries(
  snapshotPath: string,
): { get(key: Deno.KvKey): number | null | undefined; close(): void } {
  const db = new DatabaseSync(snapshotPath, { readOnly: true });
  const read = db.prepare("SELECT expiration_ms AS at FROM kv WHERE k = ?");
  return {
    get(key) {
      const row = read.get(encodeKvKey(key)) as { at: number } | undefined;
      return row === undefined ? undefined : row.at >= 0 ? Number(row.at) : null;
    },
    close: () => db.close(),
  };
}

/**
 * A key in Deno KV's stored byte form (the ordered tuple encoding its SQLite backend keys
 * rows by): strings, byte arrays, numbers, bigints and booleans.
 */
export function encodeKvKey(key: Deno.KvKey): Uint8Array {
  const out: number[] = [];
  const escaped = (type: number, bytes: Uint8Array) => {
    out.push(type);
    for (const b of bytes) out.push(...(b === 0 ? [0, 0xff] : [b]));
    out.push(0);
  };
  for (const part of key) {
    if (typeof part === "string") escaped(0x02, new TextEncoder().encode(part));
    else if (part instanceof Uint8Array) escaped(0x01, part);
    else if (typeof part === "boolean") out.push(part ? 0x27 : 0x26);
    else if (typeof part === "number") {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setFloat64(0, part, false);
      if (b[0] & 0x80) b.forEach((x, i) => b[i] = x ^ 0xff);
      else b[0] ^= 0x80;
      out.push(0x21, ...b);
    } else if (typeof part === "bigint") out.push(...encodeBigInt(part));
    else throw new Error(`a key part of type ${typeof part} is not encoded`);
  }
  return new Uint8Array(out);
}

/** A bigint key part: its length in the type byte, then its big-endian magnitude (negative: complemented). */
function encodeBigInt(n: bigint): number[] {
  if (n === 0n) return [0x14];
  const abs = n < 0n ? -n : n;
  const bytes: number[] = [];
  for (let v = abs; v > 0n; v >>= 8n) bytes.unshift(Number(v & 0xffn));
  if (bytes.length > 8) {
    return n > 0n
      ? [0x1d, bytes.length, ...bytes]
      : [0x0b, bytes.length ^ 0xff, ...bytes.map((b) => b ^ 0xff)];
  }
  return n > 0n
    ? [0x14 + bytes.length, ...bytes]
    : [0x14 - bytes.length, ...bytes.map((b) => b ^ 0xff)];
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
    if (NOT_BACKED_UP.some((p) => startsWith(e.key, p))) continue;
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

function startsWith(key: Deno.KvKey, prefix: Deno.KvKey): boolean {
  return prefix.every((part, i) => key[i] === part);
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
