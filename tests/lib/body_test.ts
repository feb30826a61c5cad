import assert from "node:assert/strict";
import { readBody } from "../../lib/body.ts";
import { AppError } from "../../lib/errors.ts";

const post = (body: BodyInit, length?: number) =>
  new Request("http://localhost/", {
    method: "POST",
    body,
    headers: length === undefined ? {} : { "content-length": String(length) },
  });

async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (err) {
    assert.ok(err instanceof AppError);
    return err.status;
  }
}

/** A body without a declared length: delivered in chunks, as chunked transfer is. */
function chunked(parts: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent++ === parts) c.close();
      else c.enqueue(new Uint8Array(size).fill(97));
    },
  });
}

Deno.test("body - readBody", async (t) => {
  await t.step("a declared length reads the whole body", async () => {
    const text = JSON.stringify({ data: { name: "Ada" } });
    const bytes = await readBody(post(text, new TextEncoder().encode(text).byteLength));
    assert.equal(new TextDecoder().decode(bytes), text);
  });

  await t.step("a declared length over the limit is 413 before reading", async () => {
    assert.equal(await status(readBody(post("{}", 300_000), 256 * 1024)), 413);
  });

  await t.step("a body longer than the limit is 413 whatever length it declares", async () => {
    assert.equal(await status(readBody(post("x".repeat(2000), 10), 1000)), 413);
  });

  await t.step("without a declared length the limit holds while streaming", async () => {
    assert.equal(await status(readBody(post(chunked(20, 100)), 1000)), 413);
    assert.equal((await readBody(post(chunked(5, 100)), 1000)).byteLength, 500);
  });
});
