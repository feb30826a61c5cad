/**
 * Waiting for the scoring job in tests: a submission's final verdict (`scored_at` set).
 * @module
 */
import assert from "node:assert/strict";
import type { Submission } from "@/lib/schemas.ts";
import { readSubmission } from "@/lib/submissions/records.ts";
import type { TestEnv } from "@/tests/helpers.ts";
import { within } from "@/tests/processes.ts";

/** The submission once the scoring job has written its final verdict (fails after `ms`). */
export async function finalVerdictOf(
  env: TestEnv,
  formId: string,
  id: string,
  ms = 15_000,
): Promise<Submission> {
  let sub: Submission | null = null;
  const took = await within(ms, async () => {
    sub = await readSubmission(env.deps.kv, formId, id);
    return !!sub?.scored_at;
  });
  assert.notEqual(took, null, `submission ${id} scored`);
  return sub!;
}
