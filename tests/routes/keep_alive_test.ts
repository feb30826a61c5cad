import assert from "node:assert/strict";
import { makeForm, makeWorkspace, MESSAGE_FORM, recount, testEnv } from "@/tests/helpers.ts";

/** One HTTP/1.1 answer read off a raw connection: status, headers (lower-case) and body. */
interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Reads one answer with a `Content-Length` body; null when the server closed first. */
async function readAnswer(
  conn: Deno.Conn,
  buffered: { bytes: Uint8Array },
): Promise<RawAnswer | null> {
  const decoder = new TextDecoder();
  const chunk = new Uint8Array(8192);
  const more = async () => {
    const n = await conn.read(chunk);
    if (n === null) return false;
    const joined = new Uint8Array(buffered.bytes.length + n);
    joined.set(buffered.bytes);
    joined.set(chunk.subarray(0, n), buffered.bytes.length);
    buffered.bytes = joined;
    return true;
  };
  let end = -1;
  while ((end = decoder.decode(buffered.bytes).indexOf("\r\n\r\n")) < 0) {
    if (!(await more())) return null;
  }
  const [statusLine, ...lines] = decoder.decode(buffered.bytes.subarray(0, end)).split("\r\n");
  const headers = new Map(lines.map((l) => {
    const i = l.indexOf(":");
    return [l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim()] as [string, string];
  }));
  const length = Number(headers.get("content-length") ?? 0);
  while (buffered.bytes.length < end + 4 + length) {
    if (!(await more())) return null;
  }
  const body = decoder.decode(buffered.bytes.subarray(end + 4, end + 4 + length));
  buffered.bytes = buffered.bytes.slice(end + 4 + length);
  return { status: Number(statusLine.split(" ")[1]), headers, body };
}

Deno.test("keep-alive - JSON, urlencoded and multipart posts past 512 bytes share one connection", async () => {
  const env = await testEnv({ RATE_LIMITS: JSON.stringify({ submit: 100_000 }) });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => env.app.fetch(req),
  );
  const conn = await Deno.connect({
    hostname: "127.0.0.1",
    port: (server.addr as Deno.NetAddr).port,
  });
  try {
    const form = await makeForm(env.deps, await makeWorkspace(env.deps), MESSAGE_FORM);
    const message = "We would like a quote for 250 seats, billed yearly. ".repeat(24);
    const json = JSON.stringify({ data: { name: "Ada", email: "ada@example.com", message } });
    const urlencoded = new URLSearchParams({ name: "Ada", email: "ada@example.com", message })
      .toString();
    const multipart = [["name", "Ada"], ["email", "ada@example.com"], ["message", message]]
      .map(([name, value]) =>
        `--XyZ\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
      )
      .join("") + "--XyZ--\r\n";
    const requests = [
      ["application/json", json],
      ["application/x-www-form-urlencoded", urlencoded],
      ["multipart/form-data; boundary=XyZ", multipart],
      ["application/json", json],
    ];
    const buffered = { bytes: new Uint8Array(0) };
    for (const [i, [type, body]] of requests.entries()) {
      assert.ok(body.length > 1024, "a body that cannot arrive with the request's head");
      const head = `POST /api/v1/submit/p/${form.id} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Content-Type: ${type}\r\nAccept: application/json\r\n` +
        `X-Forwarded-For: 198.51.100.${i + 1}\r\nContent-Length: ${body.length}\r\n\r\n`;
      await conn.write(new TextEncoder().encode(head + body));
      const answer = await readAnswer(conn, buffered);
      assert.ok(answer, `request ${i + 1}: the server closed the connection`);
      assert.equal(answer.status, 201, answer.body);
      assert.notEqual(answer.headers.get("connection"), "close", `request ${i + 1}`);
    }
    assert.equal(await recount(env.deps, form.id), requests.length);
  } finally {
    conn.close();
    await server.shutdown();
    env.close();
  }
});
