import assert from "node:assert/strict";
import { fileHelp, fileHint, formatBytes } from "@/components/fields.ts";

Deno.test("fields - file hints in words, said once", async (t) => {
  await t.step("types read as people name them, joined with 'or'", () => {
    assert.equal(
      fileHint({ allowedTypes: ["image/png", "application/pdf", "text/plain"], maxSizeMB: 2 }),
      "PNG, PDF or plain text, up to 2 MB.",
    );
    assert.equal(fileHint({ allowedTypes: ["image/*"] }), "any image.");
    assert.equal(fileHint({ allowedTypes: ["image/jpeg", "image/jpeg"] }), "JPEG.");
    assert.equal(fileHint({ maxSizeMB: 5 }), "Files up to 5 MB.");
    assert.equal(fileHint({}), "");
  });
  await t.step("the owner's help replaces the hint rather than repeating it", () => {
    const f = { allowedTypes: ["image/png"], maxSizeMB: 2 };
    assert.equal(fileHelp({ ...f, help: "PNG or text, up to 2 MB" }), "PNG or text, up to 2 MB");
    assert.equal(fileHelp({ ...f, help: "  " }), "PNG, up to 2 MB.");
    assert.equal(fileHelp(f), "PNG, up to 2 MB.");
  });
});

Deno.test("fields - byte counts in the unit that reads best", () => {
  assert.equal(formatBytes(0), "0 B");
  assert.equal(formatBytes(33), "33 B");
  assert.equal(formatBytes(1023), "1023 B");
  assert.equal(formatBytes(1024), "1 KB");
  assert.equal(formatBytes(1536), "1.5 KB");
  assert.equal(formatBytes(200 * 1024 + 300), "200 KB");
  assert.equal(formatBytes(5 * 1024 * 1024), "5 MB");
  assert.equal(formatBytes(3.25 * 1024 ** 3), "3.3 GB");
});
