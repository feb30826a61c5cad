import assert from "node:assert/strict";
import { loadModel } from "@/lib/spam/load.ts";
import { scoreText } from "@/lib/spam/model.ts";
import { scoreSubmission, submissionText } from "@/lib/spam/submission_text.ts";

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

Deno.test("spam submission text - scoreSubmission scores the submission's text", async () => {
  const model = await loadModel();
  const fields = { subject: "FREE money", message: "Click here to claim your prize now!!!" };
  assert.deepEqual(
    scoreSubmission(model, FORM, fields),
    scoreText(model, { subject: "FREE money", text: fields.message }),
  );
});
