import assert from "node:assert/strict";
import { fileHelp, fileHint } from "@/components/fields.ts";

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
