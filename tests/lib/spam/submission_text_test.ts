import assert from "node:assert/strict";
import { submissionText } from "@/lib/spam/submission_text.ts";

const FORM = {
  fields: [
    { name: "name", type: "text" as const },
    { name: "email", type: "email" as const },
    { name: "subject", type: "text" as const },
    { name: "topics", type: "multiselect" as const },
    { name: "age", type: "number" as const },
    { name: "cv", type: "file" as const },
    { name: "message", type: "textarea" as const },
  ],
};

Deno.test("spam submission text - what the sender typed, files skipped", () => {
  const t = submissionText(FORM, {
    name: "Ada",
    email: "ada@example.com",
    subject: "Quote",
    topics: ["sales", "support"],
    age: 36,
    cv: { id: "f_1", name: "cv.pdf", size: 10 },
    message: "Hello there",
    extra_field: "undeclared value",
  });
  assert.deepEqual(t, {
    subject: "Quote",
    text: "Ada\nsales\nsupport\nHello there\nextra_field: undeclared value",
  });
  // Without a subject field there is no subject; a textarea named subject is body text.
  assert.deepEqual(submissionText({ fields: [] }, { note: "hi" }), { text: "note: hi" });
  assert.deepEqual(
    submissionText({ fields: [{ name: "subject", type: "textarea" }] }, { subject: "long" }),
    { text: "long" },
  );
});
