import assert from "node:assert/strict";
import { AppError } from "@/lib/errors.ts";
import { type MultipartEntry, type MultipartLimits, readMultipart } from "@/lib/http/multipart.ts";

const LIMITS: MultipartLimits = {
  maxBodyBytes: 1024 * 1024,
  maxTextBytes: 4096,
  fileCap: () => 1024,
  maxParts: 20,
};

/** A request whose body arrives `size` bytes at a time (boundaries split across reads). */
function chunked(bytes: Uint8Array, contentType: string, size: number): Request {
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(ctrl) {
      if (at >= bytes.length) return ctrl.close();
      ctrl.enqueue(bytes.slice(at, at += size));
    },
  });
  return new Request("http://x/", {
    method: "POST",
    body,
    headers: { "content-type": contentType },
  });
}

function raw(body: string, boundary = "b0undary"): Request {
  return chunked(
    new TextEncoder().encode(body),
    `multipart/form-data; boundary=${boundary}`,
    5,
  );
}

/** What Deno itself sends for a FormData body (as a browser would). */
async function browserBody(fd: FormData): Promise<{ bytes: Uint8Array; type: string }> {
  const req = new Request("http://x/", { method: "POST", body: fd });
  return {
    bytes: new Uint8Array(await req.arrayBuffer()),
    type: req.headers.get("content-type")!,
  };
}

function summary(entries: MultipartEntry[]) {
  return entries.map(([k, v]) =>
    typeof v === "string"
      ? [k, v]
      : [k, v.name, v.type, v.size, v.bytes && new TextDecoder().decode(v.bytes)]
  );
}

async function refused(req: Request, limits: MultipartLimits, status: number) {
  await assert.rejects(
    () => readMultipart(req, limits),
    (e) => e instanceof AppError && e.status === status,
  );
}

Deno.test("multipart - reading", async (t) => {
  await t.step("a browser-style body, read 1 and 7 bytes at a time", async () => {
    const fd = new FormData();
    fd.append("name", "Ada Lovelace ✓");
    fd.append('odd "name"\n', "line one\r\nline two");
    fd.append("days", "Mon");
    fd.append("days", "Tue");
    fd.append("cv", new Blob(["%PDF-1.4 --b\r\n--"], { type: "application/pdf" }), 'my "cv".pdf');
    fd.append("empty", new Blob([]), "");
    const { bytes, type } = await browserBody(fd);
    for (const size of [1, 7, bytes.length]) {
      const got = await readMultipart(chunked(bytes, type, size), LIMITS);
      assert.deepEqual(summary(got), [
        ["name", "Ada Lovelace ✓"],
        // FormData normalises a name's newline to CRLF, sent as %0D%0A.
        ['odd "name"\r\n', "line one\r\nline two"],
        ["days", "Mon"],
        ["days", "Tue"],
        ["cv", 'my "cv".pdf', "application/pdf", 16, "%PDF-1.4 --b\r\n--"],
        ["empty", "", "application/octet-stream", 0, ""],
      ]);
    }
  });

  await t.step("a file over its cap keeps its size, not its bytes", async () => {
    const fd = new FormData();
    fd.append("big", new Blob([new Uint8Array(5000)], { type: "application/pdf" }), "b.pdf");
    fd.append("after", "kept");
    const { bytes, type } = await browserBody(fd);
    const got = await readMultipart(chunked(bytes, type, 999), {
      ...LIMITS,
      fileCap: (name) => name === "big" ? 4999 : 0,
    });
    assert.deepEqual(summary(got), [
      ["big", "b.pdf", "application/pdf", 5000, null],
      ["after", "kept"],
    ]);
  });

  await t.step("preamble, transport padding and epilogue are ignored", async () => {
    const got = await readMultipart(
      raw(
        "preamble\r\n--b0undary  \r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n" +
          "--b0undary--\r\nepilogue",
      ),
      LIMITS,
    );
    assert.deepEqual(summary(got), [["a", "1"]]);
  });

  await t.step("malformed bodies are 400", async () => {
    const part = 'Content-Disposition: form-data; name="a"\r\n\r\n1\r\n';
    await refused(raw(`--b0undary\r\n${part}`), LIMITS, 400); // never closed
    await refused(
      raw(`--b0undary\r\nContent-Type: text/plain\r\n\r\n1\r\n--b0undary--`),
      LIMITS,
      400,
    );
    await refused(raw(`--b0undary\r\n\r\n1\r\n--b0undary--`), LIMITS, 400);
    await refused(raw(`--b0undaryX\r\n${part}--b0undary--`), LIMITS, 400);
    await refused(
      new Request("http://x/", {
        method: "POST",
        body: "x",
        headers: { "content-type": "multipart/form-data" },
      }),
      LIMITS,
      400,
    );
    const bad = new Uint8Array([
      ...new TextEncoder().encode(`--b0undary\r\n${part.slice(0, -3)}`),
      0xff,
      ...new TextEncoder().encode("\r\n--b0undary--"),
    ]);
    await refused(chunked(bad, "multipart/form-data; boundary=b0undary", 3), LIMITS, 400);
  });

  await t.step("the caps on text, parts and the whole body are 413", async () => {
    const fd = new FormData();
    fd.append("long", "x".repeat(5000));
    let body = await browserBody(fd);
    await refused(chunked(body.bytes, body.type, 1000), LIMITS, 413);
    const many = new FormData();
    for (let i = 0; i < 21; i++) many.append(`f${i}`, "1");
    body = await browserBody(many);
    await refused(chunked(body.bytes, body.type, 1000), LIMITS, 413);
    const big = new FormData();
    big.append("f", new Blob([new Uint8Array(2000)]), "f.bin");
    body = await browserBody(big);
    await refused(chunked(body.bytes, body.type, 1000), { ...LIMITS, maxBodyBytes: 1500 }, 413);
  });
});
