/**
 * Issue 19's admin pages in headless Chromium against the real app on a free port, with
 * axe-core on each: a form's retention and its next removal, erase by email through the
 * confirmation to the finished job, and the audit log filtered by action.
 */
import assert from "node:assert/strict";
import { createUser } from "@/lib/admin/users.ts";
import { createForm } from "@/lib/forms/forms.ts";
import { runErase } from "@/lib/privacy/erase.ts";
import { CONTACT_FORM, makeWorkspace, postJson, testEnv } from "@/tests/helpers.ts";
import { freePort } from "@/tests/processes.ts";
import { assertNoAxeViolations } from "./axe.ts";
import { openPage, serveApp, signIn } from "./admin_session.ts";
import { chromiumPresent } from "./chromium.ts";

const PASSWORD = "browser-privacy-password";

Deno.test({
  name: "privacy admin browser - retention, erase with confirmation, audit log; axe on each page",
  ignore: !(await chromiumPresent()),
  async fn(t) {
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = await testEnv({
      BASE_URL: base,
      TRUST_PROXY: "0",
      RATE_LIMITS: JSON.stringify({ submit: 100_000, workspace: 100_000 }),
    });
    const ws = await makeWorkspace(env.deps, "starter");
    await createUser(env.deps, {
      email: "owner@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "owner",
      owner: true,
    });
    const form = await createForm(env.deps, ws.id, CONTACT_FORM);
    for (const email of ["ada@example.com", "ada@example.com", "bo@example.com"]) {
      const res = await postJson(env, `/api/v1/submit/p/${form.id}`, {
        data: { name: "X", email },
      });
      assert.equal(res.status, 201);
      await res.body?.cancel();
    }
    const server = serveApp(env, port);
    const { browser, page } = await openPage();
    try {
      await t.step("sign in and set a form's retention; the next removal shows", async () => {
        await signIn(page, base, "owner@example.com", PASSWORD);
        await page.goto(`${base}/admin/forms/${form.id}`);
        assert.match(await page.locator("#retention-summary").innerText(), /kept until someone/);
        await page.getByLabel("For", { exact: true }).check();
        await page.getByLabel("Days to keep submissions").fill("30");
        await page.getByRole("button", { name: "Save privacy settings" }).click();
        await page.waitForURL(/notice=privacy_saved/);
        const summary = await page.locator("#retention-summary").innerText();
        assert.match(summary, /deleted once they are 30 days old; next removal \d{4}-\d\d-\d\d/);
        await assertNoAxeViolations(page, "form overview with privacy");
      });

      await t.step("erase by email: confirmation with counts, then the job finishes", async () => {
        await page.getByRole("link", { name: "Privacy" }).click();
        await page.waitForURL(`${base}/admin/privacy`);
        await assertNoAxeViolations(page, "privacy page");
        await page.getByLabel("Email address").fill("ada@example.com");
        await page.getByRole("button", { name: "Erase…" }).click();
        await page.locator("#preview-total").waitFor();
        assert.match(await page.locator("#preview-total").innerText(), /deletes 2 submissions/);
        await assertNoAxeViolations(page, "erase confirmation");
        await page.getByRole("button", { name: "Erase 2 submissions" }).click();
        await page.waitForURL(/job=job_/);
        const jobId = new URL(page.url()).searchParams.get("job")!;
        // The app's queue is not listened to in tests: run the job as the listener would.
        await runErase(env.deps, jobId);
        await page.reload();
        assert.match(await page.locator("#job-status").innerText(), /Done: 2 submissions deleted/);
        await assertNoAxeViolations(page, "erase job");
      });

      await t.step("the audit log shows the entries, filtered by action", async () => {
        await page.getByRole("link", { name: "Audit log" }).click();
        await page.waitForURL(`${base}/admin/audit`);
        await assertNoAxeViolations(page, "audit log");
        await page.getByLabel("Action").selectOption("privacy.erasure");
        await page.getByRole("button", { name: "Filter" }).click();
        await page.waitForURL(/action=privacy.erasure/);
        const rows = page.locator("tbody tr");
        assert.equal(await rows.count(), 2);
        assert.match(await rows.first().innerText(), /finished: 2 deleted/);
        await page.getByLabel("Action").selectOption("form.retention_changed");
        await page.getByRole("button", { name: "Filter" }).click();
        await page.waitForURL(/action=form.retention_changed/);
        assert.match(await rows.first().innerText(), /forever to 30 days/);
        await assertNoAxeViolations(page, "audit log filtered");
      });
    } finally {
      await browser.close();
      await server.shutdown();
      env.close();
    }
  },
});
