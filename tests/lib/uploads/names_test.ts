import assert from "node:assert/strict";
import { downloadName } from "@/lib/uploads/names.ts";

Deno.test("upload names - the download's extension follows the verified type", () => {
  const cases: [string, string, string][] = [
    ["invoice.html", "image/png", "invoice.png"],
    ["invoice.pdf.html", "application/pdf", "invoice.pdf.pdf"],
    ["drawing.svg", "image/jpeg", "drawing.jpg"],
    ["setup.hta", "text/plain", "setup.txt"],
    ["photo.JPEG", "image/jpeg", "photo.JPEG"],
    ["scan.jfif", "image/jpeg", "scan.jfif"],
    ["notes", "text/markdown", "notes.md"],
    ["archive.tar.gz", "application/gzip", "archive.tar.gz"],
    ["v1.2 final", "application/pdf", "v1.2 final.pdf"],
    ["data.", "text/csv", "data.csv"],
    [".html", "text/plain", "file.txt"],
    ["recording.webm", "audio/webm", "recording.webm"],
    ["thing.exe", "application/x-unknown-type", "thing.bin"],
  ];
  for (const [name, type, want] of cases) assert.equal(downloadName(name, type), want, name);
  for (const type of ["image/png", "text/plain", "application/pdf", "video/mp4", "x/y"]) {
    for (const name of ["a.html", "a.htm", "a.svg", "a.hta", "a.xhtml", "a.js", "a.mht"]) {
      assert.doesNotMatch(downloadName(name, type), /\.(html?|svg|hta|xhtml|js|mht)$/i);
    }
  }
});
