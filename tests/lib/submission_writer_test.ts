import assert from "node:assert/strict";
import { AppError } from "../../lib/errors.ts";
import type { SubmissionDraft } from "../../lib/submission_writer.ts";
import { contactData, makeForm, makeWorkspace, recount, testEnv } from "../helpers.ts";
import { assertCountersExact } from "../recount.ts";

Deno.test("submission writer - a value KV refuses fails only its own submission", async () => {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps);
  const form = await makeForm(env.deps, ws);
  const draft = (i: number, oversized = false): SubmissionDraft => ({
    form,
    workspace: ws,
    mode: "live",
    fields: contactData(i).data,
    metadata: {},
    files: [],
    signals: {},
    status: "completed",
    limits: [],
    size: 1024,
    // A rider writing a value over KV's 64 KiB makes the whole batch's commit throw.
    riders: oversized
      ? [{ checks: 0, apply: (op) => Promise.resolve(void op.set(["x", i], "x".repeat(70_000))) }]
      : [],
  });
  const results = await Promise.allSettled(
    [0, 1, 2, 3, 4].map((i) => env.deps.writer.write(draft(i, i === 2))),
  );
  const refused = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
  assert.equal(refused.length, 1);
  assert.ok(refused[0].reason instanceof AppError);
  assert.equal(refused[0].reason.status, 413);
  assert.equal(results.filter((r) => r.status === "fulfilled").length, 4);
  assert.equal(await recount(env.deps, form.id), 4);
  const numbers = results.flatMap((r) =>
    r.status === "fulfilled" ? [r.value.body.submission_number] : []
  );
  assert.deepEqual(numbers.sort(), [1, 2, 3, 4]);
  await assertCountersExact(env.deps.kv, form.id, "live");
  env.close();
});
