/**
 * The address a visitor typed for a resume link is personal data: the email log and the
 * outbox keep it, export by email lists the mails sent to it and erase by email removes
 * them, even when no draft or submission holds the address.
 * @module
 */
import assert from "node:assert/strict";
import { runErase } from "@/lib/privacy/erase.ts";
import { listEmailLog, listOutbox } from "@/lib/notify/outbox.ts";
import { makeForm, makeKey, makeWorkspace, postJson, testEnv } from "@/tests/helpers.ts";
import { DRAFT_FORM, draftReq } from "@/tests/drafts_support.ts";
import { runJobs, waitFor } from "@/tests/lib/notify/_support.ts";

Deno.test("drafts - export and erase by email cover resume-link recipients", async () => {
  const env = await testEnv();
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, DRAFT_FORM);
    const base = `/api/v1/forms/p/${form.id}/drafts`;
    const mail = async (email: string) => {
      const d = await (await postJson(env, base, { data: { name: "Ada" } })).json();
      const res = await draftReq(env, "POST", `${base}/${d.draft_id}/resume-link`, d.resume_token, {
        email,
      });
      assert.equal(res.status, 202);
    };
    await mail("Visitor@Example.com");
    await mail("other@example.com");
    const sentTo = async () => ({
      outbox: (await listOutbox(env.deps, ws.id)).flatMap((m) => m.to).sort(),
      log: (await listEmailLog(env.deps, ws.id)).flatMap((e) => e.to).sort(),
    });
    await waitFor("both mails kept", async () => (await sentTo()).log.length === 2);
    assert.deepEqual(await sentTo(), {
      outbox: ["Visitor@Example.com", "other@example.com"],
      log: ["Visitor@Example.com", "other@example.com"],
    });

    const reader = await makeKey(env.deps, ws, { scopes: ["read"] });
    const exportOf = async (email: string) =>
      await (await env.request(`/api/v1/server/privacy/export?email=${email}`, {
        headers: { authorization: `Bearer ${reader}` },
      })).json();
    const exported = await exportOf("visitor@example.com");
    assert.deepEqual(exported.drafts, [], "no draft holds the address");
    assert.equal(exported.resume_mails.length, 1);
    assert.deepEqual(exported.resume_mails[0].form, { public_id: form.id, name: form.name });
    assert.ok(Date.parse(exported.resume_mails[0].sent_at) > Date.now() - 60_000);
    assert.doesNotMatch(JSON.stringify(exported), /resume=/, "never the link itself");

    const admin = await makeKey(env.deps, ws, { scopes: ["read", "admin"] });
    const erase = await env.request("/api/v1/server/privacy/erase", {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "visitor@example.com" }),
    });
    assert.equal(erase.status, 202);
    await runErase(env.deps, (await erase.json()).job.id);
    assert.deepEqual(await sentTo(), {
      outbox: ["other@example.com"],
      log: ["other@example.com"],
    }, "only the other address's mail stays");
    assert.deepEqual((await exportOf("visitor@example.com")).resume_mails, []);
    assert.equal((await exportOf("other@example.com")).resume_mails.length, 1);
  } finally {
    env.close();
    await jobs.catch(() => {});
  }
});
