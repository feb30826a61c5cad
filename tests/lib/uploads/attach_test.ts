import assert from "node:assert/strict";
import type { AppError } from "@/lib/errors.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Submission } from "@/lib/schemas.ts";
import type { SubmissionDraft } from "@/lib/submissions/types.ts";
import { prepareAttachments } from "@/lib/uploads/attach.ts";
import type { UploadGrant } from "@/lib/uploads/grants.ts";
import { makeForm, makeWorkspace } from "@/tests/helpers.ts";
import { FILES_FORM, grantFor, putBytes, SAMPLES, uploadEnv } from "@/tests/upload_fixtures.ts";

Deno.test("uploads attach - one file attaches to one submission, even within one commit", async () => {
  const u = await uploadEnv("local");
  try {
    const ws = await makeWorkspace(u.deps, "pro");
    const form = await makeForm(u.deps, ws, FILES_FORM);
    const g = await grantFor(u, form.id, "fld_photo", "p.png", "image/png", SAMPLES.png.byteLength);
    assert.equal(await putBytes(u, g, SAMPLES.png, "image/png"), 200);
    const draft = async (name: string, file: boolean): Promise<SubmissionDraft> => {
      const fields: Record<string, unknown> = {
        name,
        ...(file ? { photo: { path: g.path } } : {}),
      };
      const att = await prepareAttachments(u.deps, form, "live", fields);
      return {
        form,
        workspace: ws,
        mode: "live",
        fields,
        metadata: {},
        files: att.files,
        signals: {},
        limits: [],
        size: 200,
        parts: att.parts,
      };
    };
    const [d0, d1, d2] = [
      await draft("first", false),
      await draft("a", true),
      await draft("b", true),
    ];
    // d0 keeps the form's committer busy, so d1 and d2 go out together in the next batch.
    const results = await Promise.allSettled([
      u.deps.writer.write(d0),
      u.deps.writer.write(d1),
      u.deps.writer.write(d2),
    ]);
    assert.equal(results[0].status, "fulfilled");
    const won = results.slice(1).filter((r) => r.status === "fulfilled");
    const lost = results.slice(1).filter((r) => r.status === "rejected");
    assert.equal(won.length, 1);
    assert.equal(lost.length, 1);
    const err = (lost[0] as PromiseRejectedResult).reason as AppError;
    assert.equal(err.status, 422);
    const winner = (won[0] as PromiseFulfilledResult<{ body: { submission_id: string } }>).value;
    const grant = (await u.deps.kv.get<UploadGrant>(keys.uploadGrant(g.path))).value!;
    assert.equal(grant.state, "attached");
    assert.equal(grant.submission_id, winner.body.submission_id);
    let holding = 0;
    for await (const e of u.deps.kv.list<Submission>({ prefix: keys.submissions(form.id) })) {
      if (e.value.files.includes(g.path)) holding++;
    }
    assert.equal(holding, 1);
  } finally {
    await u.close();
  }
});
