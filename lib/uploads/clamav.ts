/**
 * A clamd client speaking the documented INSTREAM protocol (clamd(8)): `zINSTREAM\0`, the
 * bytes as chunks each prefixed by its length (4 bytes, big-endian), a zero-length chunk to
 * end, then one reply: `stream: OK`, `stream: <name> FOUND`, or `... ERROR` (for instance
 * `INSTREAM size limit exceeded` past clamd's StreamMaxLength, when clamd also closes).
 * @module
 */

/** What clamd said about a stream. */
export type ScanResult =
  | { clean: true }
  | { clean: false; signature: string }
  /** clamd could not scan it (e.g. longer than its StreamMaxLength); the text says why. */
  | { clean: false; error: string };

/** clamd could not be reached, or broke off without an answer. */
export class ScannerUnavailableError extends Error {
  override name = "ScannerUnavailableError";
}

/** Largest chunk sent at once (clamd reads any size up to StreamMaxLength). */
const CHUNK = 64 * 1024;
/** A scan that connects but never answers within this long counts as unreachable. */
const SCAN_TIMEOUT_MS = 60_000;

/** Host and port of a `tcp://host:port` clamd address. */
export function parseClamavUrl(url: string): { hostname: string; port: number } {
  const u = new URL(url);
  if (u.protocol !== "tcp:" || !u.hostname || !u.port) {
    throw new Error("CLAMAV_URL must look like tcp://host:port");
  }
  return { hostname: u.hostname.replace(/^\[|\]$/g, ""), port: Number(u.port) };
}

/**
 * Streams `stream` to clamd at `url` (`tcp://host:port`) and returns its verdict; throws
 * ScannerUnavailableError when clamd cannot be reached or gives no verdict. The stream is
 * always consumed or cancelled.
 */
export async function scanStream(
  url: string,
  stream: ReadableStream<Uint8Array>,
  timeoutMs = SCAN_TIMEOUT_MS,
): Promise<ScanResult> {
  let conn: Deno.TcpConn;
  try {
    conn = await Deno.connect({ ...parseClamavUrl(url), transport: "tcp" });
  } catch (err) {
    await stream.cancel().catch(() => {});
    throw new ScannerUnavailableError(`clamd unreachable: ${(err as Error).message}`);
  }
  const timer = setTimeout(() => conn.close(), timeoutMs);
  try {
    const reply = readReply(conn);
    // clamd may answer (and close) before the end, e.g. past StreamMaxLength: the send
    // then fails, and the reply already read says why.
    const sent = send(conn, stream).then(() => null, (err: unknown) => err);
    const text = await reply;
    const sendError = await sent;
    if (text === null) {
      throw new ScannerUnavailableError(
        `clamd gave no answer${sendError ? `: ${(sendError as Error).message}` : ""}`,
      );
    }
    return verdictOf(text);
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // already closed (timeout, or clamd hung up)
    }
  }
}

/** Writes the command, the length-prefixed chunks and the terminator. */
async function send(conn: Deno.TcpConn, stream: ReadableStream<Uint8Array>): Promise<void> {
  const reader = stream.getReader();
  try {
    await writeAll(conn, new TextEncoder().encode("zINSTREAM\0"));
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (let off = 0; off < value.byteLength; off += CHUNK) {
        const part = value.subarray(off, off + CHUNK);
        const frame = new Uint8Array(4 + part.byteLength);
        new DataView(frame.buffer).setUint32(0, part.byteLength, false);
        frame.set(part, 4);
        await writeAll(conn, frame);
      }
    }
    await writeAll(conn, new Uint8Array(4));
  } catch (err) {
    await reader.cancel().catch(() => {});
    throw err;
  } finally {
    reader.releaseLock();
  }
}

async function writeAll(conn: Deno.TcpConn, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.byteLength) off += await conn.write(bytes.subarray(off));
}

/** The reply up to its NUL terminator (or the close), or null when nothing came. */
async function readReply(conn: Deno.TcpConn): Promise<string | null> {
  const parts: number[] = [];
  const buf = new Uint8Array(1024);
  for (;;) {
    let n: number | null;
    try {
      n = await conn.read(buf);
    } catch {
      n = null;
    }
    if (n === null) break;
    const nul = buf.subarray(0, n).indexOf(0);
    parts.push(...buf.subarray(0, nul < 0 ? n : nul));
    if (nul >= 0 || parts.length > 4096) break;
  }
  const text = new TextDecoder().decode(new Uint8Array(parts)).trim();
  return text ? text : null;
}

/** Maps clamd's reply line to a result. */
export function verdictOf(reply: string): ScanResult {
  const body = reply.replace(/^stream:\s*/, "");
  if (body === "OK") return { clean: true };
  const found = /^(.+) FOUND$/.exec(body);
  if (found) return { clean: false, signature: found[1] };
  return { clean: false, error: body.replace(/\s*ERROR$/, "") };
}
