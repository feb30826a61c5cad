import assert from "node:assert/strict";
import { dispatch } from "../../../lib/jobs/mod.ts";
import { keys } from "../../../lib/kv_keys.ts";
import type { Submission } from "../../../lib/schemas.ts";
import { deleteSubmissions } from "../../../lib/submission_delete.ts";
import type { CreatedBody, SubmissionDraft } from "../../../lib/submission_writer.ts";
import { makeForm, makeWorkspace, testEnv } from "../../helpers.ts";

Deno.test("score submissions - the duplicate signal looks back 100 submissions", async (t) => {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps);
  const form = await makeForm(env.deps, ws);
  const write = async (name: string): Promise<CreatedBody> => {
    const draft: SubmissionDraft = {
      form,
      workspace: ws,
      mode: "live",
      fields: { name, email: "a@example.com" },
      metadata: {},
      files: [],
      signals: {},
      status: "completed",
      limits: [],
      size: 1024,
    };
    return (await env.deps.writer.write(draft)).body;
  };
  const fillers = async (n: number): Promise<CreatedBody[]> => {
    const out: CreatedBody[] = [];
    for (let i = 0; i < n; i++) out.push(await write(`Filler ${out.length} ${Math.random()}`));
    return out;
  };
  /** Scores one submission the way the writer's job does; returns its reasons. */
  const reasons = async (b: CreatedBody): Promise<string[]> => {
    await dispatch(env.deps, {
      type: "score_submissions",
      form_id: form.id,
      ids: [b.submission_id],
      mode: "live",
      last_number: b.submission_number,
    });
    const sub = await env.deps.kv.get<Submission>(keys.submission(form.id, b.submission_id));
    return sub.value!.spam?.reasons ?? [];
  };
  const message = (n: number) =>
    `Message ${n}: we would like a quote for forty seats on the annual plan, thank you.`;

  await t.step("a copy 100 submissions back is a duplicate, 101 back is not", async () => {
    assert.equal((await write(message(1))).submission_number, 1);
    await fillers(99);
    const copy = await write(message(1));
    assert.equal(copy.submission_number, 101);
    assert.ok((await reasons(copy)).includes("duplicate_payload"));
    await write(message(2));
    await fillers(100);
    assert.ok(!(await reasons(await write(message(2)))).includes("duplicate_payload"));
  });

  await t.step("deleted submissions do not shorten the look-back", async () => {
    await write(message(3));
    const between = await fillers(100);
    const gone = await deleteSubmissions(env.deps, form, "live", [between[50].submission_id]);
    assert.equal(gone.deleted, 1);
    // 101 back by number, but 100 back among the stored ones: still in the context.
    assert.ok((await reasons(await write(message(3)))).includes("duplicate_payload"));
  });
  env.close();
});
