/**
 * A minimal POSIX ustar archive writer and reader (regular files only), so a backup is one
 * file any `tar` lists and extracts. Sizes past ustar's 8 GiB octal field use the
 * base-256 form GNU and BSD tar read.
 * @module
 */

const BLOCK = 512;

/** Appends regular files to an open file as a ustar archive. */
export class TarWriter {
  #file: Deno.FsFile;
  /** Bytes written so far. */
  written = 0;

  constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /** Adds `name` holding `bytes`. */
  async addBytes(name: string, bytes: Uint8Array, mtime = Date.now()): Promise<void> {
    await this.addStream(name, bytes.byteLength, new Blob([bytes.slice()]).stream(), mtime);
  }

  /** Adds `name` holding exactly `size` bytes read from `stream` (fails if it differs). */
  async addStream(
    name: string,
    size: number,
    stream: ReadableStream<Uint8Array>,
    mtime = Date.now(),
  ): Promise<void> {
    await this.#write(header(name, size, mtime));
    let n = 0;
    for await (const chunk of stream) {
      n += chunk.byteLength;
      if (n > size) throw new Error(`${name} grew while being archived`);
      await this.#write(chunk);
    }
    if (n !== size) throw new Error(`${name} shrank while being archived`);
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad) await this.#write(new Uint8Array(pad));
  }

  /** Writes the end-of-archive marker (two zero blocks). */
  async finish(): Promise<void> {
    await this.#write(new Uint8Array(BLOCK * 2));
  }

  async #write(bytes: Uint8Array): Promise<void> {
    let off = 0;
    while (off < bytes.byteLength) off += await this.#file.write(bytes.subarray(off));
    this.written += bytes.byteLength;
  }
}

/** One member of an archive: its name, size and where its bytes start. */
export interface TarEntry {
  name: string;
  size: number;
  offset: number;
}

/** Lists the regular files of the archive `file` (by seeking from header to header). */
export async function listTar(file: Deno.FsFile): Promise<TarEntry[]> {
  const out: TarEntry[] = [];
  let pos = 0;
  const head = new Uint8Array(BLOCK);
  for (;;) {
    await file.seek(pos, Deno.SeekMode.Start);
    if (!await readFull(file, head)) throw new Error("The archive ends early (truncated?).");
    if (head.every((b) => b === 0)) return out;
    if (text(head, 257, 5) !== "ustar") throw new Error("Not a ustar archive.");
    const sum = head.reduce((s, b, i) => s + (i >= 148 && i < 156 ? 32 : b), 0);
    if (sum !== parseInt(text(head, 148, 8), 8)) throw new Error("Bad archive header checksum.");
    const prefix = text(head, 345, 155);
    const name = (prefix ? `${prefix}/` : "") + text(head, 0, 100);
    const size = readSize(head.subarray(124, 136));
    const type = String.fromCharCode(head[156] || 48);
    if (type === "0") out.push({ name, size, offset: pos + BLOCK });
    pos += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
}

/** The bytes of one entry. */
export async function readEntry(file: Deno.FsFile, entry: TarEntry): Promise<Uint8Array> {
  const buf = new Uint8Array(entry.size);
  await file.seek(entry.offset, Deno.SeekMode.Start);
  if (!await readFull(file, buf)) throw new Error(`${entry.name} is cut short.`);
  return buf;
}

/** Copies one entry to `to` in chunks (for entries too large to hold in memory). */
export async function copyEntry(file: Deno.FsFile, entry: TarEntry, to: Deno.FsFile) {
  const buf = new Uint8Array(1024 * 1024);
  await file.seek(entry.offset, Deno.SeekMode.Start);
  let left = entry.size;
  while (left > 0) {
    const part = buf.subarray(0, Math.min(left, buf.byteLength));
    if (!await readFull(file, part)) throw new Error(`${entry.name} is cut short.`);
    let off = 0;
    while (off < part.byteLength) off += await to.write(part.subarray(off));
    left -= part.byteLength;
  }
}

async function readFull(file: Deno.FsFile, buf: Uint8Array): Promise<boolean> {
  let off = 0;
  while (off < buf.byteLength) {
    const n = await file.read(buf.subarray(off));
    if (n === null) return false;
    off += n;
  }
  return true;
}

function text(b: Uint8Array, at: number, len: number): string {
  const s = b.subarray(at, at + len);
  const end = s.indexOf(0);
  return new TextDecoder().decode(end < 0 ? s : s.subarray(0, end)).trim();
}

function readSize(field: Uint8Array): number {
  if (field[0] & 0x80) {
    let n = 0;
    for (let i = 1; i < field.length; i++) n = n * 256 + field[i];
    return n;
  }
  return parseInt(text(field, 0, field.length), 8) || 0;
}

function header(name: string, size: number, mtime: number): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const enc = new TextEncoder();
  let base = name;
  let prefix = "";
  if (enc.encode(name).length > 100) {
    const cut = name.lastIndexOf("/", 155);
    [prefix, base] = [name.slice(0, cut), name.slice(cut + 1)];
    if (cut < 0 || enc.encode(base).length > 100) throw new Error(`name too long: ${name}`);
  }
  const put = (at: number, s: string) => h.set(enc.encode(s), at);
  const octal = (at: number, len: number, n: number) =>
    put(at, n.toString(8).padStart(len - 1, "0") + "\0");
  put(0, base);
  octal(100, 8, 0o644);
  octal(108, 8, 0);
  octal(116, 8, 0);
  if (size < 8 ** 11) octal(124, 12, size);
  else {
    h[124] = 0x80;
    for (let i = 135, n = size; i > 124; i--, n = Math.floor(n / 256)) h[i] = n % 256;
  }
  octal(136, 12, Math.floor(mtime / 1000));
  h[156] = 48; // "0": a regular file
  put(257, "ustar\0");
  put(263, "00");
  put(345, prefix);
  h.fill(32, 148, 156);
  const sum = h.reduce((s, b) => s + b, 0);
  put(148, sum.toString(8).padStart(6, "0") + "\0 ");
  return h;
}
