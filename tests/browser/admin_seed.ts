/**
 * A workspace with something on every admin page, sent through the real app at `base`: an
 * instance owner, an admin and a viewer, a form with long values, three submissions (one
 * with a 33-byte file, one marked spam), views and starts, an API key, a webhook to
 * `receiverPort` with deliveries, and the notification mails in the Outbox.
 * @module
 */
import assert from "node:assert/strict";
import { createUser } from "@/lib/admin/users.ts";
import { listApiKeys } from "@/lib/keys/api_keys.ts";
import { listDeliveries } from "@/lib/notify/deliver.ts";
import { listOutbox } from "@/lib/notify/outbox.ts";
import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import type { FormDefinition } from "@/lib/schemas.ts";
import { setSubmissionStatus } from "@/lib/submissions/status.ts";
import { PASSWORD } from "@/tests/admin_support.ts";
import { makeForm, makeKey, makeWorkspace, type TestEnv } from "@/tests/helpers.ts";
import { waitFor } from "@/tests/lib/notify/_support.ts";

/** The seeded form: every kind of value the pages show: long text, a select, a file. */
export const SEED_FORM: FormDefinition = {
  name: "Conference talk proposals and speaker applications for the autumn meetup",
  fields: [
    { id: "fld_name", name: "name", label: "Full name", type: "text", required: true },
    { id: "fld_email", name: "email", label: "Email", type: "email", required: true },
    {
      id: "fld_topic",
      name: "topic",
      label: "Topic",
      type: "select",
      options: ["Distributed systems and consensus", "Accessibility", "Other"],
    },
    { id: "fld_abstract", name: "abstract", label: "Abstract", type: "textarea" },
    { id: "fld_slides", name: "slides", label: "Slides", type: "file" },
  ],
  notifications: {
    emails: ["owner@example.com"],
    subject: "New proposal for {form} from {field:name}",
    notify_suspicious: true,
    notify_spam: false,
  },
};

const LONG_WORD = "https://example.com/a/very/long/link/" + "segment".repeat(30);

/** The seeded viewer's email (password {@linkcode PASSWORD}). */
export const VIEWER = "viewer-with-a-rather-long-address@example.com";

/**
 * Seeds the workspace (the owner signs in as owner@example.com with {@linkcode PASSWORD});
 * `env` must run its jobs (mail and deliveries are waited for).
 */
export async function seedWorkspace(env: TestEnv, base: string, receiverPort: number) {
  const ws = await makeWorkspace(env.deps, "pro");
  await createUser(env.deps, {
    email: "owner@example.com",
    password: PASSWORD,
    workspaceIds: [ws.id],
    role: "owner",
    owner: true,
  });
  for (const role of ["admin", "viewer"] as const) {
    await createUser(env.deps, {
      email: `${role}-with-a-rather-long-address@example.com`,
      password: PASSWORD,
      workspaceIds: [ws.id],
      role,
    });
  }
  const form = await makeForm(env.deps, ws, SEED_FORM);
  await makeKey(env.deps, ws);
  const kid = (await listApiKeys(env.deps, ws.id))[0].id;
  const hook = await createWebhook(env.deps, ws.id, {
    url: `http://127.0.0.1:${receiverPort}/hooks/formwell/${"deep/".repeat(12)}receiver`,
    events: ["submission.created"],
  }, { actor: "test" });
  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  for (const type of ["view", "view", "start"]) {
    await (await post(`/api/v1/forms/p/${form.id}/events`, { type })).body?.cancel();
  }
  // A 33-byte file through the real upload path.
  const bytes = new TextEncoder().encode("thirty-three bytes of slide text\n");
  assert.equal(bytes.byteLength, 33);
  const grantRes = await post(`/api/v1/forms/p/${form.id}/upload-url`, {
    fieldId: "fld_slides",
    fileName: "slides.txt",
    contentType: "text/plain",
    sizeBytes: bytes.byteLength,
  });
  assert.equal(grantRes.status, 200, await grantRes.clone().text());
  const grant = await grantRes.json() as {
    path: string;
    uploadUrl: string;
    storageToken: string;
  };
  const put = await fetch(grant.uploadUrl, {
    method: "PUT",
    headers: { "content-type": "text/plain", authorization: `Bearer ${grant.storageToken}` },
    body: bytes,
  });
  assert.ok(put.ok, `upload ${put.status}`);
  await put.body?.cancel();
  const sids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await post(`/api/v1/submit/p/${form.id}`, {
      data: {
        name: `Speaker number ${i} with a long double-barrelled name`,
        email: `speaker.${i}.with.a.long.address@example.com`,
        topic: "Distributed systems and consensus",
        abstract: `${LONG_WORD}\n\nA talk about ${"consensus ".repeat(40)}`,
        ...(i === 0 ? { slides: { path: grant.path } } : {}),
      },
      metadata: { page: LONG_WORD, campaign: "autumn" },
    });
    assert.equal(res.status, 201, await res.clone().text());
    sids.push((await res.json()).submission_id);
  }
  await setSubmissionStatus(env.deps, form.id, sids[2], "spam");
  await waitFor("outbox mail", async () => (await listOutbox(env.deps, ws.id)).length >= 2);
  await waitFor(
    "webhook deliveries",
    async () => (await listDeliveries(env.deps, hook.id)).length >= 1,
  );

  return { ws, form, sids, kid, hookId: hook.id };
}
