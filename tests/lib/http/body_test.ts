import assert from "node:assert/strict";
import { readBody, storedSize, treeFlaw, utf8Length, within } from "@/lib/http/body.ts";
import { AppError } from "@/lib/errors.ts";

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

Deno.test("body - tree checks and sizes", async (t) => {
  await t.step("treeFlaw finds deep nesting and lone surrogates, in keys too", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 33; i++) deep = [deep];
    assert.equal(treeFlaw(deep, 32), "deep");
    assert.equal(treeFlaw((deep as unknown[])[0], 32), null);
    assert.equal(treeFlaw({ a: { b: ["ok", "\ud800"] } }, 32), "unicode");
    assert.equal(treeFlaw({ ["\udc00"]: 1 }, 32), "unicode");
    assert.equal(treeFlaw({ a: "😀", b: [null, 1, true] }, 32), null);
  });

  await t.step("utf8Length counts what TextEncoder would write", () => {
    for (const text of ["", "ascii", "é", "€ and 😀", "\ud800 lone", "end \udbff", "日本語"]) {
      assert.equal(utf8Length(text), new TextEncoder().encode(text).byteLength, text);
    }
  });

  await t.step("storedSize bounds both the UTF-8 JSON and V8's two-byte strings", () => {
    const ascii = { values: { a: "x".repeat(100) } };
    assert.ok(storedSize(ascii) >= JSON.stringify(ascii).length);
    const wide = { values: { a: "日".repeat(100) } };
    assert.ok(storedSize(wide) >= new TextEncoder().encode(JSON.stringify(wide)).byteLength);
  });
});

Deno.test("body - within: the value, the error, or a 408 at the deadline; no timer left", async () => {
  assert.equal(await within(Promise.resolve(7), 1_000), 7);
  await assert.rejects(within(Promise.reject(new Error("boom")), 1_000), /boom/);
  // Requests sharing a deadline's tick: the slow one times out, the others are untouched.
  let late!: (v: string) => void;
  const never = new Promise<string>((r) => late = r);
  const [fast, slow] = [within(Promise.resolve("ok"), 30), within(never, 30)];
  assert.equal(await fast, "ok");
  assert.equal(await status(slow), 408);
  late("too late"); // settling after the 408 changes nothing
  assert.equal(await status(slow), 408);
});
