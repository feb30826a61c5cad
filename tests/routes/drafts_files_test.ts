/**
 * A draft never holds files: a file field's value (an upload's reference) sent with a save
 * is left out of what the draft stores, not refused, so a resumed page never offers an
 * upload that may be gone; the visitor chooses the file again.
 * @module
 */
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import type { Draft } from "@/lib/drafts/types.ts";
import { DRAFT_FORM, draftReq } from "@/tests/drafts_support.ts";
import { makeForm, makeWorkspace, postJson, testEnv } from "@/tests/helpers.ts";

Deno.test("drafts - file fields are left out of what a draft stores", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, {
      ...DRAFT_FORM,
      fields: [...DRAFT_FORM.fields!, { name: "cv", type: "file", label: "CV" }],
    });
    const base = `/api/v1/forms/p/${form.id}/drafts`;
    const ref = { path: `uploads/${form.id}/upl_x/cv.pdf`, originalFilename: "cv.pdf" };
    const started = await postJson(env, base, { data: { name: "Ada", cv: ref } });
    assert.equal(started.status, 201);
    const d = await started.json();
    const stored = await env.deps.kv.get<Draft>(keys.draft(form.id, d.draft_id));
    assert.deepEqual(stored.value?.data, { name: "Ada" });
    const saved = await draftReq(env, "PUT", `${base}/${d.draft_id}`, d.resume_token, {
      data: { name: "Ada", topic: "sales", cv: ref },
    });
    assert.equal(saved.status, 200);
    const read = await (await draftReq(env, "GET", `${base}/${d.draft_id}`, d.resume_token))
      .json();
    assert.deepEqual(read.data, { name: "Ada", topic: "sales" });
    // Other fields are still checked.
    const wrong = await draftReq(env, "PUT", `${base}/${d.draft_id}`, d.resume_token, {
      data: { topic: "nope", cv: ref },
    });
    assert.equal(wrong.status, 422);
    assert.deepEqual((await wrong.json()).errors.map((e: { field: string }) => e.field), [
      "topic",
    ]);
  } finally {
    env.close();
  }
});
