import assert from "node:assert/strict";
import { inspectBytes, sanitiseFileName, streamHasActiveContent } from "@/lib/uploads/checks.ts";
import { allowedTypesOf, normaliseType, typeAllowed } from "@/lib/rules/files.ts";
import type { Field } from "@/lib/schemas.ts";
import { SAMPLES } from "@/tests/upload_fixtures.ts";
import { cfbBytes, DOCX, mp4Audio, PLAIN_ZIP, webmAudio } from "@/tests/upload_samples.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("upload_checks - types", async (t) => {
  await t.step("normalises case, parameters and aliases; refuses junk", () => {
    assert.equal(normaliseType("Image/JPG; charset=x"), "image/jpeg");
    assert.equal(normaliseType("text/plain;charset=utf-8"), "text/plain");
    assert.equal(normaliseType("image"), null);
    assert.equal(normaliseType("a/b/c"), null);
    assert.equal(normaliseType("text/plain\r\nx: y"), null);
  });

  await t.step("wildcards never reach SVG, HTML or executables", () => {
    assert.ok(typeAllowed("image/png", ["image/*"]));
    assert.ok(!typeAllowed("image/svg+xml", ["image/*"]));
    assert.ok(!typeAllowed("image/svg+xml", ["image/svg+xml"]));
    assert.ok(!typeAllowed("text/html", ["*/*"]));
    assert.ok(!typeAllowed("application/x-msdownload", ["*/*"]));
    assert.ok(typeAllowed("application/x-msdownload", ["application/x-msdownload"]));
    assert.ok(!typeAllowed("video/mp4", ["image/*"]));
    assert.ok(typeAllowed("image/jpeg", ["image/jpg"]));
  });

  await t.step("fields without allowedTypes get their type's default", () => {
    const f = (type: Field["type"]) => ({ id: "f", name: "f", type, required: false }) as Field;
    assert.deepEqual(allowedTypesOf(f("image")), ["image/*"]);
    assert.deepEqual(allowedTypesOf(f("file")), ["*/*"]);
    assert.deepEqual(allowedTypesOf({ ...f("file"), allowedTypes: ["Application/PDF"] }), [
      "application/pdf",
    ]);
  });
});

Deno.test("upload_checks - inspectBytes", async (t) => {
  await t.step("a signature wins over the declaration within its family", async () => {
    assert.deepEqual(await inspectBytes(SAMPLES.jpg, true, "image/png", ["image/*"]), {
      ok: true,
      mimeType: "image/jpeg",
    });
    const r = await inspectBytes(SAMPLES.png, true, "application/pdf", ["*/*"]);
    assert.equal(r.ok, false);
  });

  await t.step("types without a signature pass only as clean UTF-8 text", async () => {
    const ok = await inspectBytes(enc("é,ü\n1,2\n"), true, "text/csv", ["text/csv"]);
    assert.deepEqual(ok, { ok: true, mimeType: "text/csv" });
    for (
      const bad of [
        enc("a\u0000b"),
        new Uint8Array([0xc3, 0x28]),
        enc("x\u001bY"),
        enc("<script>x</script>"),
        enc("=1+1 <IFRAME src=x>"),
        enc("<?php echo 1;"),
        new Uint8Array(),
      ]
    ) {
      const r = await inspectBytes(bad, true, "text/plain", ["text/plain"]);
      assert.equal(r.ok, false, new TextDecoder().decode(bad));
    }
    const notText = await inspectBytes(enc("hello"), true, "application/pdf", ["*/*"]);
    assert.equal(notText.ok, false);
    const badJson = await inspectBytes(enc("{nope"), true, "application/json", ["*/*"]);
    assert.equal(badJson.ok, false);
  });

  await t.step("a head cut inside a multi-byte character still counts as text", async () => {
    const cut = enc("aé").subarray(0, 2);
    assert.equal((await inspectBytes(cut, false, "text/plain", ["text/plain"])).ok, true);
    assert.equal((await inspectBytes(cut, true, "text/plain", ["text/plain"])).ok, false);
  });
});

Deno.test("upload_checks - generic containers keep a declared member type", async (t) => {
  const DOC = "application/msword";
  const XLS = "application/vnd.ms-excel";
  const PPT = "application/vnd.ms-powerpoint";
  const DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
  const accepted = async (bytes: Uint8Array, declared: string, allowed: string[]) =>
    await inspectBytes(bytes, true, declared, allowed);

  await t.step("audio recordings in video containers", async () => {
    assert.deepEqual(await accepted(webmAudio(), "audio/webm", ["audio/*"]), {
      ok: true,
      mimeType: "audio/webm",
    });
    assert.deepEqual(await accepted(webmAudio(), "audio/webm", ["audio/webm"]), {
      ok: true,
      mimeType: "audio/webm",
    });
    assert.deepEqual(await accepted(mp4Audio(), "audio/mp4", ["audio/*"]), {
      ok: true,
      mimeType: "audio/mp4",
    });
    assert.deepEqual(await accepted(mp4Audio(), "audio/x-m4a", ["audio/x-m4a"]), {
      ok: true,
      mimeType: "audio/x-m4a",
    });
    assert.deepEqual(await accepted(mp4Audio("M4A "), "audio/mp4", ["audio/mp4"]), {
      ok: true,
      mimeType: "audio/mp4",
    });
    // Declared as video, it stays video.
    assert.deepEqual(await accepted(webmAudio(), "video/webm", ["video/*"]), {
      ok: true,
      mimeType: "video/webm",
    });
  });

  await t.step("legacy Office files in a bare CFB", async () => {
    for (const type of [DOC, XLS, PPT]) {
      assert.deepEqual(await accepted(cfbBytes(), type, [DOC, XLS, PPT]), {
        ok: true,
        mimeType: type,
      });
    }
  });

  await t.step("OOXML: identified, or a plain ZIP declared as one", async () => {
    assert.deepEqual(await accepted(DOCX, DOCX_TYPE, [DOCX_TYPE]), {
      ok: true,
      mimeType: DOCX_TYPE,
    });
    assert.deepEqual(await accepted(PLAIN_ZIP, DOCX_TYPE, [DOCX_TYPE]), {
      ok: true,
      mimeType: DOCX_TYPE,
    });
  });

  await t.step("a container is never a way around the field or the family", async () => {
    const refused: [Uint8Array, string, string[]][] = [
      [webmAudio(), "audio/webm", ["audio/mpeg"]], // member, but not allowed here
      [webmAudio(), "audio/mpeg", ["audio/*"]], // not a member of video/webm
      [mp4Audio(), "audio/webm", ["audio/*"]],
      [cfbBytes(), "application/pdf", ["application/pdf"]],
      [cfbBytes(), DOC, ["application/pdf"]],
      [PLAIN_ZIP, "application/pdf", ["application/pdf"]],
      [SAMPLES.png, "audio/webm", ["audio/*"]],
    ];
    for (const [bytes, declared, allowed] of refused) {
      const r = await accepted(bytes, declared, allowed);
      assert.equal(r.ok, false, `${declared} ${allowed}`);
    }
  });
});

Deno.test("upload_checks - sanitiseFileName", () => {
  assert.equal(sanitiseFileName("../../etc/passwd"), "etc_passwd");
  assert.equal(sanitiseFileName("a\u0000b.png"), "ab.png");
  assert.equal(sanitiseFileName("C:\\Windows\\x.exe"), "C__Windows_x.exe");
  assert.equal(sanitiseFileName(".htaccess"), "htaccess");
  assert.equal(sanitiseFileName("evil\u202egnp.exe"), "evilgnp.exe");
  assert.equal(sanitiseFileName("   "), "file");
  assert.equal(sanitiseFileName("shell.jpg.php"), "shell.jpg.php");
  const long = sanitiseFileName(`${"é".repeat(300)}.pdf`);
  assert.equal([...long].length, 200);
  assert.ok(long.endsWith(".pdf"));
});

/** A stream of `text` cut into chunks of `size` bytes. */
function chunked(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let off = 0;
  return new ReadableStream({
    pull(c) {
      if (off >= bytes.byteLength) return c.close();
      c.enqueue(bytes.slice(off, off + size));
      off += size;
    },
  });
}

Deno.test("checks - the streaming markup scan sees every byte, across chunk edges", async () => {
  const pad = "x".repeat(1000);
  for (const size of [1, 3, 7, 64, 4096]) {
    for (const marker of ["<script>", "<!DOCTYPE  html>", "<?php", "javascript:", "< \n\t svg "]) {
      assert.equal(await streamHasActiveContent(chunked(pad + marker + pad, size)), true, marker);
    }
    assert.equal(await streamHasActiveContent(chunked(pad + "<script", size)), true, "at the end");
    // Whitespace longer than the kept overlap, spread over many chunks.
    const spaced = pad + "<" + " ".repeat(5000) + "iframe>" + pad;
    assert.equal(await streamHasActiveContent(chunked(spaced, size)), true, `spaced ${size}`);
    const handler = pad + "<img  src=x\n\n onerror =alert(1)>" + pad;
    assert.equal(await streamHasActiveContent(chunked(handler, size)), true, `handler ${size}`);
    const link = pad + "<a  class=x  href='//evil'>" + pad;
    assert.equal(await streamHasActiveContent(chunked(link, size)), true, `link ${size}`);
    // A bare tag is a marker in text only (random binary bytes hold such pairs by chance).
    const bare = pad + "<a>x</a>" + pad;
    assert.equal(await streamHasActiveContent(chunked(bare, size), true), true, `bare ${size}`);
    assert.equal(await streamHasActiveContent(chunked(bare, size), false), false, `bin ${size}`);
    // `<bodyguard` is no marker, wherever a chunk edge falls in it.
    const clean = pad + "a < b; x <= y; <bodyguard> <scripts scripture javascripts" + pad;
    assert.equal(await streamHasActiveContent(chunked(clean, size)), false, `clean ${size}`);
  }
});
