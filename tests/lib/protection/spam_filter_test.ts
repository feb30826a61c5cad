/**
 * A form's own score thresholds (`spam_filter`): validated with the definition, kept by an
 * update that omits them, and applied by every verdict (the storing commit's and the scoring
 * job's).
 * @module
 */
import assert from "node:assert/strict";
import { AppError } from "@/lib/errors.ts";
import { createForm, updateForm } from "@/lib/forms/forms.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import type { Submission } from "@/lib/schemas.ts";
import { makeWorkspace, postBotLike, testEnv } from "@/tests/helpers.ts";
import { finalVerdictOf } from "@/tests/scoring.ts";

const FIELDS = [
  { name: "name", type: "text" as const },
  { name: "email", type: "email" as const },
  { name: "message", type: "textarea" as const },
];

Deno.test("spam filter - validated, kept on update, applied to verdicts", async () => {
  const env = await testEnv({ RATE_LIMITS: '{"submit":100000}' });
  env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    for (
      const bad of [
        { suspicious_at: 80, spam_at: 50 },
        { suspicious_at: 0 },
        { spam_at: 102 },
        { spam_at: 70.5 },
        { spam: 70 },
      ]
    ) {
      await assert.rejects(
        createForm(env.deps, ws.id, { name: "F", fields: FIELDS, spam_filter: bad }),
        (e: unknown) => e instanceof AppError && e.status === 400 && /spam_filter/.test(e.message),
        JSON.stringify(bad),
      );
    }
    // A form whose admin turned flagging off (101 is above the highest score).
    const lenient = await createForm(env.deps, ws.id, {
      name: "Lenient",
      fields: FIELDS,
      spam_filter: { suspicious_at: 101, spam_at: 101 },
    });
    const strict = await createForm(env.deps, ws.id, { name: "Strict", fields: FIELDS });
    const kept = await updateForm(env.deps, lenient.id, { name: "Lenient 2", fields: FIELDS });
    assert.deepEqual(kept.spam_filter, { suspicious_at: 101, spam_at: 101 });

    const final = async (formId: string, i: number): Promise<Submission> => {
      const res = await postBotLike(env, formId, i);
      assert.equal(res.status, 201);
      return await finalVerdictOf(env, formId, (await res.json()).submission_id);
    };
    const a = await final(strict.id, 1);
    const b = await final(lenient.id, 2);
    assert.equal(a.status, "spam", JSON.stringify(a.spam));
    // Scored as high, and still kept in the inbox.
    assert.ok(b.spam && b.spam.score >= 70, JSON.stringify(b.spam));
    assert.equal(b.status, "completed");

    const cleared = await updateForm(env.deps, lenient.id, {
      name: "Lenient 3",
      fields: FIELDS,
      spam_filter: null,
    });
    assert.equal(cleared.spam_filter, undefined);
  } finally {
    await env.deps.jobs.stop();
    env.close();
  }
});
