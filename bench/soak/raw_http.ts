/**
 * Malformed HTTP on the wire, which no fetch client can send: broken request lines,
 * lying lengths, bad chunking, oversized headers. The server may answer 4xx or drop the
 * connection; it must never answer 5xx, and must keep serving.
 * @module
 */
import type { BadTargets } from "./bad_util.ts";

/** One raw request. */
export interface RawCase {
  name: string;
  bytes: Uint8Array;
}

const enc = new TextEncoder();

/** The raw cases, aimed at the submit route of `t.formId`. */
export function rawHttpCases(t: BadTargets): RawCase[] {
  const path = `/api/v1/submit/p/${t.formId}`;
  const head = (extra: string) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
    `Authorization: Bearer ${t.keys.submit}\r\n${extra}`;
  const body = JSON.stringify({ data: { name: "Ada", email: "ada@example.com" } });
  const big = `{"data":{"name":"${"x".repeat(300_000)}"}}`;
  const cases: [string, string][] = [
    ["garbage request line", "GARBAGE\r\n\r\n"],
    ["http/0.9", "GET /\r\n\r\n"],
    ["spaces in target", `GET /api/v1/forms/p/a b c HTTP/1.1\r\nHost: x\r\n\r\n`],
    ["short body", head(`Content-Length: 500\r\nConnection: close\r\n\r\n${body}`)],
    ["negative length", head(`Content-Length: -1\r\n\r\n${body}`)],
    ["non-numeric length", head(`Content-Length: abc\r\n\r\n${body}`)],
    ["two lengths", head(`Content-Length: 5\r\nContent-Length: 50\r\n\r\n${body}`)],
    ["bad chunk size", head(`Transfer-Encoding: chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`)],
    [
      "length and chunked",
      head(`Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`),
    ],
    ["header without colon", head(`Broken header line\r\nContent-Length: 2\r\n\r\n{}`)],
    ["nul in header", head(`X-A: a\u0000b\r\nContent-Length: 2\r\n\r\n{}`)],
    ["huge header", head(`X-Big: ${"h".repeat(200_000)}\r\nContent-Length: 2\r\n\r\n{}`)],
    ["oversized body", head(`Content-Length: ${big.length}\r\n\r\n${big}`)],
    ["lying large length", head(`Content-Length: 99999999999\r\nConnection: close\r\n\r\n{}`)],
    ["unknown version", `GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n`],
  ];
  return cases.map(([name, text]) => ({ name, bytes: enc.encode(text) }));
}

/**
 * Sends raw bytes, half-closes, and reads until the peer closes or 5 s pass. Returns the
 * status of the first response, or null when the server answered nothing.
 */
export async function sendRaw(baseUrl: string, bytes: Uint8Array): Promise<number | null> {
  const { hostname, port } = new URL(baseUrl);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const timer = setTimeout(() => conn.close(), 5_000);
  let text = "";
  try {
    try {
      for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
      await conn.closeWrite();
    } catch {
      // The server may close early on a bad request: read what it said.
    }
    const buf = new Uint8Array(16 * 1024);
    for (;;) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
      if (/\r\n\r\n/.test(text)) break;
    }
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // Closed by the timer.
    }
  }
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  return m ? Number(m[1]) : null;
}
