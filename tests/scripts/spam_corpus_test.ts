import assert from "node:assert/strict";
import { groupedFold, readFolder, TRAINING_FOLDERS, trainingLabel } from "@/scripts/spam/corpus.ts";
import { senderDomain } from "@/scripts/spam/mail.ts";

Deno.test("spam corpus - only the two training folders can be read", async () => {
  assert.equal(trainingLabel(TRAINING_FOLDERS.ham), "ham");
  assert.equal(trainingLabel(TRAINING_FOLDERS.spam), "spam");
  // Any name but the two: other folders of the package, paths, the empty name.
  const others = ["easy-ham-3", "hard-ham-2", "spam-3", "easy-ham-2/../spam-3", "", "data"];
  for (const name of others) {
    assert.throws(() => trainingLabel(name), /refusing to read corpus folder/);
    // Refused before the disk is touched: a directory that does not exist is never opened.
    await assert.rejects(readFolder("/nonexistent", name), /refusing to read corpus folder/);
  }
});

Deno.test("spam corpus - the grouped split keeps a sender domain on one side", () => {
  const raw = (from: string) => `From: ${from}\nSubject: x\n\nbody`;
  assert.equal(senderDomain(raw("Ann <ann@lists.Example.COM>")), "example.com");
  assert.equal(senderDomain(raw("bob@mail.example.co.uk")), "example.co.uk");
  assert.equal(senderDomain("Subject: none\n\nbody"), "");
  const a = groupedFold({ sender: senderDomain(raw("a@x.example.org")) });
  const b = groupedFold({ sender: senderDomain(raw("b@y.example.org")) });
  assert.equal(a, b);
});
