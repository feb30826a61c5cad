/**
 * Backup test fixtures: a populated instance (workspace, form with a file, submissions with
 * a hand-set status, API key, a member, a webhook and their audit events) and a comparison
 * of two KVs entry by entry.
 * @module
 */
import assert from "node:assert/strict";
import { createUser } from "@/lib/admin/users.ts";
import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import { setSubmissionStatus } from "@/lib/submissions/status.ts";
import type { Form } from "@/lib/schemas.ts";
import { keys } from "@/lib/kv/keys.ts";
import { makeForm, makeKey, makeWorkspace, postJson, type TestEnv } from "./helpers.ts";

/** A form with a text field and a file field. */
export const BACKUP_FORM = {
  name: "Applications",
  fields: [
    { id: "fld_name", name: "name", type: "text" as const },
    { id: "fld_cv", name: "cv", type: "file" as const, allowedTypes: ["text/plain"] },
  ],
};

/** What {@linkcode populate} made. */
export interface Populated {
  form: Form;
  apiKey: string;
  /** The submissions, numbers 1 to 3 (the third marked spam by hand). */
  ids: string[];
  /** The submission holding the file, and the file's bytes. */
  withFile: { id: string; path: string; bytes: Uint8Array };
}

/** Uploads `bytes` as the form's `cv` through the local driver; returns the path. */
export async function uploadText(env: TestEnv, formId: string, bytes: Uint8Array) {
  const res = await postJson(env, `/api/v1/forms/p/${formId}/upload-url`, {
    fieldId: "fld_cv",
    fileName: "cv.txt",
    contentType: "text/plain",
    sizeBytes: bytes.byteLength,
  });
  const g = await res.json();
  const put = await env.app.request(g.uploadUrl, {
    method: "PUT",
    headers: {
      "content-type": "text/plain",
      "content-length": String(bytes.byteLength),
      authorization: `Bearer ${g.storageToken}`,
    },
    body: bytes.slice(),
  });
  assert.equal(put.status, 200, await put.text());
  return g.path as string;
}

/** Fills an instance with one of everything a backup must keep. */
export async function populate(env: TestEnv): Promise<Populated> {
  const deps = env.deps;
  const ws = await makeWorkspace(deps, "pro");
  const form = await makeForm(deps, ws, BACKUP_FORM);
  const apiKey = await makeKey(deps, ws);
  const bytes = new TextEncoder().encode("Ada Lovelace\nNotes on the Analytical Engine\n");
  const path = await uploadText(env, form.id, bytes);
  const ids: string[] = [];
  for (const data of [{ name: "Ada", cv: { path } }, { name: "Grace" }, { name: "Edsger" }]) {
    const res = await postJson(env, `/api/v1/submit/p/${form.id}`, { data });
    assert.equal(res.status, 201, await res.clone().text());
    ids.push((await res.json()).submission_id);
  }
  await setSubmissionStatus(deps, form.id, ids[2], "spam");
  await createUser(deps, {
    email: "member@example.com",
    password: "a long password",
    workspaceIds: [ws.id],
    role: "owner",
  });
  await createWebhook(deps, ws.id, { url: "https://hooks.example.com/formwell" }, {
    actor: "cli",
    mode: "live",
  });
  return { form, apiKey, ids, withFile: { id: ids[0], path, bytes } };
}

/** Every entry of `kv` but the last-backup record, KvU64 values as `{u64}`. */
export async function allEntries(kv: Deno.Kv): Promise<[Deno.KvKey, unknown][]> {
  const out: [Deno.KvKey, unknown][] = [];
  for await (const e of kv.list({ prefix: [] })) {
    if (e.key[0] === keys.lastBackup()[0]) continue;
    out.push([e.key, e.value instanceof Deno.KvU64 ? { u64: e.value.value } : e.value]);
  }
  return out;
}
