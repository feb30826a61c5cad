/**
 * Resume links through a real SMTP server: the mail goes to the address given, says who
 * sent it and why, carries the link and no form data; one a draft per 10 minutes; the
 * workspace's and the instance's caps on visitor mail apply; a wrong token is 404.
 * @module
 */
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { INSTANCE_VISITOR_MAILS_PER_HOUR } from "@/lib/drafts/resume_mail.ts";
import { WORKSPACE_REPLIES_PER_HOUR } from "@/lib/notify/autoresponder.ts";
import { makeForm, makeWorkspace, postJson, testEnv } from "@/tests/helpers.ts";
import { DRAFT_FORM, draftReq } from "@/tests/drafts_support.ts";
import { recipients, runJobs, smtp, waitFor } from "@/tests/lib/notify/_support.ts";

Deno.test("drafts - a resume link by email", async (t) => {
  const sink = await smtp();
  let clock = Date.now();
  const env = await testEnv({ SMTP_URL: sink.url, BASE_URL: "https://forms.example.org" }, {
    now: () => clock,
  });
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, DRAFT_FORM);
    const base = `/api/v1/forms/p/${form.id}/drafts`;
    const d = await (await postJson(env, base, { data: { name: "Ada Lovelace" } })).json();
    const link = `${base}/${d.draft_id}/resume-link`;

    await t.step("a wrong token is 404 and sends nothing", async () => {
      const res = await draftReq(env, "POST", link, "drf_x.y", { email: "ada@example.com" });
      assert.equal(res.status, 404);
      const bare = await postJson(env, link, { email: "ada@example.com" });
      assert.equal(bare.status, 404, "no token");
      assert.equal(sink.calls(), 0);
    });

    await t.step("202, then the mail arrives with the link and no form data", async () => {
      const res = await draftReq(env, "POST", link, d.resume_token, { email: "ada@example.com" });
      assert.equal(res.status, 202);
      await waitFor("the resume mail", () => sink.mails.length === 1);
      const mail = sink.mails[0];
      assert.deepEqual(recipients(mail), ["ada@example.com"]);
      const text = mail.text ?? "";
      const url = `https://forms.example.org/f/${form.id}?resume=${
        encodeURIComponent(d.resume_token)
      }`;
      assert.ok(text.includes(url), text);
      assert.match(text, /asked forms\.example\.org to send this address a link/);
      assert.match(text, new RegExp(`“${form.name}” of ${ws.name}`));
      assert.ok(!text.includes("Ada Lovelace"), "no form data");
      assert.ok(!(mail.subject ?? "").includes("Ada"));
    });

    await t.step("the link opens the hosted page", async () => {
      const page = await env.request(`/f/${form.id}?resume=${encodeURIComponent(d.resume_token)}`);
      assert.equal(page.status, 200);
      await page.body?.cancel();
    });

    await t.step("one a draft per 10 minutes", async () => {
      const again = await draftReq(env, "POST", link, d.resume_token, { email: "b@example.com" });
      assert.equal(again.status, 429);
      assert.match((await again.json()).error, /10 minutes/);
      clock += 10 * 60_000;
      const later = await draftReq(env, "POST", link, d.resume_token, { email: "b@example.com" });
      assert.equal(later.status, 202);
      await waitFor("the second mail", () => sink.mails.length === 2);
    });

    await t.step("a bad address is 400", async () => {
      clock += 10 * 60_000;
      const res = await draftReq(env, "POST", link, d.resume_token, { email: "nope" });
      assert.equal(res.status, 400);
    });

    await t.step("the workspace's cap, then the instance's, hold links back", async () => {
      const now = clock;
      const full = (n: number) => Array.from({ length: n }, () => now - 1000);
      await env.deps.kv.set(
        keys.autoresponderWorkspaceSends(ws.id),
        full(WORKSPACE_REPLIES_PER_HOUR),
      );
      const res = await draftReq(env, "POST", link, d.resume_token, { email: "c@example.com" });
      assert.equal(res.status, 429);
      await env.deps.kv.delete(keys.autoresponderWorkspaceSends(ws.id));
      await env.deps.kv.set(keys.visitorMailSends(), full(INSTANCE_VISITOR_MAILS_PER_HOUR));
      const all = await draftReq(env, "POST", link, d.resume_token, { email: "c@example.com" });
      assert.equal(all.status, 429);
      await env.deps.kv.delete(keys.visitorMailSends());
      const ok = await draftReq(env, "POST", link, d.resume_token, { email: "c@example.com" });
      assert.equal(ok.status, 202);
      await waitFor("the third mail", () => sink.mails.length === 3);
    });
  } finally {
    env.close();
    await jobs.catch(() => {});
    await sink.close();
  }
});
