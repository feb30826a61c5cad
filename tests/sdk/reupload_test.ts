/**
 * A submission whose upload grant expired while it waited (the service answers 422 `file`
 * on that field): the client uploads the kept bytes again and resubmits once, under the
 * same Idempotency-Key; a second such answer is final.
 */
import assert from "node:assert/strict";
import { Formwell, type FormwellError } from "@/sdk/mod.ts";
import { json, scriptedFetch, testRuntime } from "./fakes.ts";

const FILE_422 = {
  error: "invalid",
  code: "validation_failed",
  errors: [{
    field: "cv",
    fieldId: "fld_cv",
    message: "The file upload expired.",
    type: "file",
  }],
};

function service(submitAnswers: Response[]) {
  let grants = 0;
  let submits = 0;
  return scriptedFetch((req) => {
    if (req.url.endsWith("/upload-url")) {
      grants++;
      return json(200, {
        path: `fAbc/file${grants}`,
        uploadUrl: `https://forms.test/api/v1/uploads/fAbc/file${grants}`,
        uploadToken: `t${grants}`,
        storageToken: `st${grants}`,
      });
    }
    if (req.method === "PUT") return json(200, {});
    if (req.method === "GET") return json(404, { error: "No such form.", code: "not_found" });
    return submitAnswers[submits++] ??
      json(201, { submission_id: "sub_1", submission_number: 1 });
  });
}

Deno.test("sdk submit - an expired upload is uploaded again and resubmitted once", async () => {
  const { fetch, sent } = service([json(422, FILE_422)]);
  const fw = new Formwell({
    baseUrl: "https://forms.test",
    outbox: false,
    runtime: testRuntime(fetch),
  });
  const cv = new File(["%PDF-1.4"], "cv.pdf", { type: "application/pdf" });
  const r = await fw.submit("fAbc", { name: "Ada" }, { files: { cv } });
  assert.equal(r.submission_id, "sub_1");
  const submits = sent.filter((s) => s.url.includes("/submit/p/"));
  assert.equal(submits.length, 2);
  assert.equal(
    submits[0].headers["idempotency-key"],
    submits[1].headers["idempotency-key"],
  );
  const paths = submits.map((
    s,
  ) => ((s.body as { data: { cv: { path: string } } }).data.cv.path));
  assert.deepEqual(paths, ["fAbc/file1", "fAbc/file2"]);
  const puts = sent.filter((s) => s.method === "PUT");
  assert.deepEqual(puts.map((p) => p.headers.authorization), [
    "Bearer st1",
    "Bearer st2",
  ]);
});

Deno.test("sdk submit - a 422 that is not only about kept files is final", async () => {
  const mixed = {
    ...FILE_422,
    errors: [...FILE_422.errors, {
      ...FILE_422.errors[0],
      field: "name",
      type: "required",
    }],
  };
  for (
    const answers of [[json(422, mixed)], [
      json(422, FILE_422),
      json(422, FILE_422),
    ]]
  ) {
    const { fetch, sent } = service(answers);
    const fw = new Formwell({
      baseUrl: "https://forms.test",
      outbox: false,
      runtime: testRuntime(fetch),
    });
    const cv = new File(["%PDF-1.4"], "cv.pdf", { type: "application/pdf" });
    await assert.rejects(
      fw.submit("fAbc", { cv }),
      (e: FormwellError) => e.status === 422,
    );
    assert.equal(
      sent.filter((s) => s.url.includes("/submit/p/")).length,
      answers.length,
    );
  }
});
