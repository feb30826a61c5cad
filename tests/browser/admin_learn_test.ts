/**
 * Learning from admins and "says why" in headless Chromium against the real app: bulk
 * "Mark as spam" on the list moves status and counters exactly as a recount and teaches the
 * workspace (learn_label job); the submission's page explains the spam verdict in words
 * with the driving words marked (and the sender's markup shown as text); axe finds nothing.
 */
import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import { createUser } from "@/lib/admin/users.ts";
import { createForm } from "@/lib/forms/forms.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { SpamStats } from "@/lib/spam/learn.ts";
import { seedSubmissions } from "@/bench/seed.ts";
import { CONTACT_FORM, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { freePort, within } from "@/tests/processes.ts";
import { assertCountersExact, recordsOf } from "@/tests/recount.ts";
import { assertNoAxeViolations } from "./axe.ts";
import { openPage, serveApp, signIn } from "./admin_session.ts";
import { chromiumPresent } from "./chromium.ts";

const PASSWORD = "browser-learn-password";
const SPAMMY = "Congratulations!! You have been selected to receive a FREE credit card offer. " +
  "Click here to claim your cash prize now, limited time, 100% guaranteed, no obligation. " +
  "Order today and save $$$ <script>alert(1)</script>";

Deno.test({
  name: "admin browser - bulk mark as spam teaches the workspace; the page says why, axe 0",
  ignore: !(await chromiumPresent()),
  async fn(t) {
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = await testEnv({ BASE_URL: base, TRUST_PROXY: "0" });
    env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
    const ws = await makeWorkspace(env.deps, "starter");
    await createUser(env.deps, {
      email: "owner@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "owner",
      owner: true,
    });
    const form = await createForm(env.deps, ws.id, {
      ...CONTACT_FORM,
      fields: [
        ...(CONTACT_FORM.fields ?? []),
        { id: "fld_msg", name: "message", type: "textarea", maxLength: 5000 },
      ],
    });
    // Three submissions, scored by the real job: two pitches and one ordinary note.
    const ids = await seedSubmissions(env.deps, form, 3, {
      status: () => "completed",
      fields: (i) => ({
        name: `Person ${i + 1}`,
        email: `p${i + 1}@example.com`,
        message: i < 2 ? SPAMMY : "Hi, could you send me the opening hours for next week?",
      }),
    });
    const op = env.deps.kv.atomic();
    env.deps.jobs.enqueue(op, {
      type: "score_batch",
      form_id: form.id,
      workspace_id: form.workspace_id,
      mode: "live",
      ids,
    });
    assert.ok((await op.commit()).ok);
    const scored = await within(10_000, async () => {
      const records = await recordsOf(env.deps.kv, form.id, "live");
      return records.length === 3 && records.every((s) => s.scored_at);
    });
    assert.notEqual(scored, null, "scored");

    const server = serveApp(env, port);
    const { browser, page } = await openPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    page.on("dialog", (d) => {
      problems.push(`dialog: ${d.message()}`);
      d.dismiss();
    });
    const subs = `${base}/admin/forms/${form.id}/submissions`;
    try {
      await t.step("sign in and bulk-mark the two pitches as spam", async () => {
        await signIn(page, base, "owner@example.com", PASSWORD);
        await page.goto(subs);
        await assertNoAxeViolations(page);
        await page.getByLabel("Select submission 1").check();
        await page.getByLabel("Select submission 2").check();
        await page.getByRole("button", { name: "Mark as spam" }).click();
        await page.waitForURL(/notice=marked_spam_many/);
        await assertNoAxeViolations(page);
        assert.equal(await page.locator("tbody .badge.spam").count(), 2);
        const records = await recordsOf(env.deps.kv, form.id, "live");
        const byId = new Map(records.map((s) => [s.id, s]));
        assert.deepEqual(ids.map((id) => byId.get(id)?.status), ["spam", "spam", "completed"]);
        assert.ok(byId.get(ids[0])?.spam?.manual);
        await assertCountersExact(env.deps.kv, form.id, "live");
        // The workspace learned both labels, through the job.
        const learned = await within(10_000, async () => {
          const s = await env.deps.kv.get<SpamStats>(keys.spamStats(ws.id));
          return s.value?.spam === 2;
        });
        assert.notEqual(learned, null, "learn_label ran for both");
      });

      await t.step("the submission's page explains the spam verdict in words", async () => {
        await page.goto(`${subs}/${ids[0]}`);
        await page.getByRole("heading", { name: "Submission #1" }).waitFor();
        const main = await page.locator("main").innerText();
        assert.match(main, /Content: \d{2,3}% spam-like/);
        assert.match(main, /set by an admin/);
        assert.doesNotMatch(main, /content_0\.\d+|no_user_agent/, "no raw codes");
        assert.match(main, /Sent without a user agent/);
        const marks = await page.locator("dd mark").allInnerTexts();
        assert.ok(marks.length > 0, "driving words are marked");
        for (const m of marks) assert.ok(SPAMMY.toLowerCase().includes(m.toLowerCase()), m);
        // The sender's markup is text, never markup.
        assert.equal(await page.locator("main dd script").count(), 0);
        assert.match(main, /<script>alert\(1\)<\/script>/);
        const sub = await readSubmission(env.deps.kv, form.id, ids[0]);
        assert.ok(sub?.spam?.content, "the content figure survives the re-label");
        await assertNoAxeViolations(page);
      });
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
      await server.shutdown();
      await env.deps.jobs.stop();
      env.close();
    }
  },
});
