/**
 * A minimal HTTP/1.1 POST over a connection to a given address: TCP to the checked IP,
 * then TLS with SNI and certificate checks for the URL's host. No redirects are followed,
 * the whole exchange has a deadline, and only the first bytes of the body are read.
 * @module
 */

/** What an endpoint answered. */
export interface PostResult {
  status: number;
  /** The first `maxBody` bytes of the body, decoded as UTF-8. */
  body: string;
  /** The response headers, names lower-cased (a repeated header: its last value). */
  headers: Record<string, string>;
}

/** The header lines of a response head (the status line skipped). */
function parseHeaders(head: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of head.split("\r\n").slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) out[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return out;
}

function findHeaderEnd(buf: Uint8Array): number {
  for (let i = 3; i < buf.length; i++) {
    if (buf[i - 3] === 13 && buf[i - 2] === 10 && buf[i - 1] === 13 && buf[i] === 10) return i + 1;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * The data of a chunked body, from what was read of it (chunk-size lines and extensions
 * removed; an empty body is empty), or null when it does not start with a chunk-size line.
 */
function dechunk(raw: Uint8Array): Uint8Array | null {
  let out: Uint8Array = new Uint8Array(0);
  let at = 0;
  let sized = false;
  while (at < raw.length) {
    let nl = at;
    while (nl + 1 < raw.length && !(raw[nl] === 13 && raw[nl + 1] === 10)) nl++;
    if (nl + 1 >= raw.length) break;
    const sizeText = new TextDecoder().decode(raw.subarray(at, nl)).split(";")[0].trim();
    if (!/^[0-9a-f]{1,8}$/i.test(sizeText)) break;
    sized = true;
    const size = parseInt(sizeText, 16);
    if (size === 0) break;
    out = concat(out, raw.subarray(nl + 2, Math.min(raw.length, nl + 2 + size)));
    at = nl + 2 + size + 2;
  }
  return sized ? out : null;
}

/**
 * A TCP connection, or a throw once `deadline` aborts (the connect's own signal does not end
 * a connect the peer never answers); a connection made after that is closed.
 */
function connectBy(to: Deno.ConnectOptions, deadline: AbortSignal): Promise<Deno.TcpConn> {
  const connecting = Deno.connect(to);
  return new Promise((resolve, reject) => {
    const abort = () => reject(deadline.reason);
    deadline.addEventListener("abort", abort, { once: true });
    connecting.then((c) => {
      deadline.removeEventListener("abort", abort);
      if (deadline.aborted) c.close();
      else resolve(c);
    }, (err) => {
      deadline.removeEventListener("abort", abort);
      reject(err);
    });
  });
}

/**
 * POSTs `body` to `url` connecting to `address`. Throws on connection errors and once
 * `deadline` aborts (it covers the whole exchange, the TCP connect and TLS included).
 */
export async function postPinned(opts: {
  url: URL;
  address: string;
  headers: Record<string, string>;
  body: string;
  deadline: AbortSignal;
  maxBody: number;
}): Promise<PostResult> {
  const { url, address, deadline } = opts;
  const tls = url.protocol === "https:";
  const port = url.port ? Number(url.port) : tls ? 443 : 80;
  let conn: Deno.Conn | undefined;
  const cut = () => {
    try {
      conn?.close();
    } catch { /* already closed */ }
  };
  deadline.addEventListener("abort", cut, { once: true });
  try {
    deadline.throwIfAborted();
    const tcp = await connectBy({ hostname: address, port }, deadline);
    conn = tcp;
    deadline.throwIfAborted();
    if (tls) conn = await Deno.startTls(tcp, { hostname: url.hostname.replace(/^\[|\]$/g, "") });
    const payload = new TextEncoder().encode(opts.body);
    const lines = [
      `POST ${url.pathname}${url.search} HTTP/1.1`,
      `Host: ${url.host}`,
      `Content-Length: ${payload.length}`,
      "Connection: close",
      ...Object.entries(opts.headers).map(([k, v]) => `${k}: ${v.replace(/[\r\n]/g, "")}`),
    ];
    const head = new TextEncoder().encode(`${lines.join("\r\n")}\r\n\r\n`);
    const req = concat(head, payload);
    for (let off = 0; off < req.length;) off += await conn.write(req.subarray(off));
    let buf: Uint8Array = new Uint8Array(0);
    const chunk = new Uint8Array(16 * 1024);
    let end = -1;
    while (true) {
      end = findHeaderEnd(buf);
      if (end >= 0 && buf.length - end >= opts.maxBody) break;
      const n = await conn.read(chunk);
      if (n === null) break;
      buf = concat(buf, chunk.subarray(0, n));
      if (end < 0 && buf.length > 64 * 1024) throw new Error("response headers too large");
      if (end >= 0) {
        const headText = new TextDecoder().decode(buf.subarray(0, end));
        const len = /\r\ncontent-length:\s*(\d+)/i.exec(headText);
        if (len && buf.length - end >= Number(len[1])) break;
      }
    }
    end = findHeaderEnd(buf);
    if (end < 0) throw new Error("no HTTP response");
    const headText = new TextDecoder().decode(buf.subarray(0, end));
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(headText);
    if (!m) throw new Error("malformed HTTP status line");
    let raw = buf.subarray(end);
    if (/\r\ntransfer-encoding:\s*chunked/i.test(headText)) raw = dechunk(raw) ?? raw;
    return {
      status: Number(m[1]),
      body: new TextDecoder().decode(raw.subarray(0, opts.maxBody)),
      headers: parseHeaders(headText),
    };
  } catch (err) {
    if (deadline.aborted) throw new Error("timeout: no answer within the deadline");
    throw err;
  } finally {
    deadline.removeEventListener("abort", cut);
    cut();
  }
}
