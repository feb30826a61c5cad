import assert from "node:assert/strict";
import { makeForm, makeWorkspace } from "@/tests/helpers.ts";
import { FILES_FORM, grantFor, uploadEnv } from "@/tests/upload_fixtures.ts";

const TIMEOUT_MS = 400;

/**
 * Sends `head` and part of a body over raw TCP, then stalls; returns the raw answer and how
 * long it took. Reads until the server closes or 5 s pass (the bound of this test).
 */
async function stalledRequest(
  port: number,
  head: string,
  partial: string,
): Promise<{ text: string; ms: number }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const started = Date.now();
  await conn.write(new TextEncoder().encode(head + "\r\n" + partial));
  const chunks: string[] = [];
  const buf = new Uint8Array(4096);
  const timer = setTimeout(() => conn.close(), 5_000);
  try {
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(new TextDecoder().decode(buf.subarray(0, n)));
      if (chunks.join("").includes('"code"')) break;
    }
  } catch { /* closed by the bound */ }
  clearTimeout(timer);
  try {
    conn.close();
  } catch { /* already closed */ }
  return { text: chunks.join(""), ms: Date.now() - started };
}

function assertTimedOut(label: string, r: { text: string; ms: number }) {
  assert.match(r.text, /^HTTP\/1\.1 408 /, `${label}: ${r.text.slice(0, 200) || "(no answer)"}`);
  assert.match(r.text, /"code":"request_timeout"/, label);
  assert.ok(r.ms >= TIMEOUT_MS - 50 && r.ms < 4_000, `${label}: ${r.ms} ms`);
}

Deno.test("slow bodies - a stalled body is answered 408 request_timeout", async () => {
  const u = await uploadEnv("local", { BODY_TIMEOUT_MS: String(TIMEOUT_MS) });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => u.env.app.fetch(req),
  );
  try {
    const { port } = server.addr as Deno.NetAddr;
    const ws = await makeWorkspace(u.deps, "pro");
    const form = await makeForm(u.deps, ws, FILES_FORM);
    const submit = `/api/v1/submit/p/${form.id}`;
    const head = (method: string, path: string, type: string, length: number, extra = "") =>
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\n` +
      `Content-Length: ${length}\r\nX-Forwarded-For: 198.51.100.9\r\n${extra}`;

    assertTimedOut(
      "json",
      await stalledRequest(port, head("POST", submit, "application/json", 100), '{"data":'),
    );
    assertTimedOut(
      "urlencoded",
      await stalledRequest(
        port,
        head("POST", submit, "application/x-www-form-urlencoded", 100),
        "name=A",
      ),
    );
    assertTimedOut(
      "multipart",
      await stalledRequest(
        port,
        head("POST", submit, "multipart/form-data; boundary=XyZ", 500),
        '--XyZ\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda',
      ),
    );
    // Chunked, no length: the streaming read path.
    assertTimedOut(
      "chunked json",
      await stalledRequest(
        port,
        `POST ${submit} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
          "Transfer-Encoding: chunked\r\nX-Forwarded-For: 198.51.100.9\r\n",
        '8\r\n{"data":\r\n',
      ),
    );
    // The local upload PUT: a pause as long as the body time is 408 too (its total deadline
    // is longer: the body time plus 1 s per 64 KiB signed).
    const g = await grantFor(u, form.id, "fld_cv", "a.txt", "text/plain", 10);
    const url = new URL(g.uploadUrl);
    const put = await stalledRequest(
      port,
      head(
        "PUT",
        url.pathname + url.search,
        "text/plain",
        10,
        `Authorization: Bearer ${g.storageToken}\r\n`,
      ),
      "abc",
    );
    assertTimedOut("upload put", put);
    // A body that arrives in time is unaffected.
    const ok = await fetch(`http://127.0.0.1:${port}${submit}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ data: { name: "Ada" } }),
    });
    assert.equal(ok.status, 201, await ok.text());
  } finally {
    await server.shutdown();
    await u.close();
  }
});
