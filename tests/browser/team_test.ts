/**
 * Team accounts in headless Chromium against the real app on a free port, with no SMTP: an
 * owner invites a viewer and is shown the link to pass on, the viewer joins, sees no delete
 * or export and is refused an old export link with a way back, changes their password,
 * forgets it and resets it through the link the server kept, and strangers' failed sign-ins
 * do not lock out the browser that signed in before. axe-core runs on every page of the
 * flow; the members page is also checked at phone width.
 */
import assert from "node:assert/strict";
import { listAccountMail } from "@/lib/admin/mail.ts";
import { roleIn } from "@/lib/admin/members.ts";
import { createUser, findUserByEmail } from "@/lib/admin/users.ts";
import { keys } from "@/lib/kv/keys.ts";
import { contactData, makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { freePort } from "@/tests/processes.ts";
import { runJobs, waitFor } from "@/tests/lib/notify/_support.ts";
import { assertNoAxeViolations } from "./axe.ts";
import { openPage, serveApp, signIn } from "./admin_session.ts";
import { chromiumPresent } from "./chromium.ts";

const PASSWORD = "owner-browser-password";

Deno.test({
  name: "team browser - invite, roles, password change and reset",
  ignore: !(await chromiumPresent()),
  async fn(t) {
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = await testEnv({ BASE_URL: base, TRUST_PROXY: "0", RATE_LIMITS: '{"login":100}' });
    const jobs = runJobs(env.deps);
    const ws = await makeWorkspace(env.deps, "starter");
    const form = await makeForm(env.deps, ws);
    await createUser(env.deps, {
      email: "owner@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "owner",
    });
    const server = serveApp(env, port);
    const sent = await fetch(`${base}/api/v1/submit/p/${form.id}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(contactData(1)),
    });
    assert.equal(sent.status, 201);
    const sid = (await sent.json()).submission_id as string;
    const { browser, page } = await openPage();
    const problems: string[] = [];
    // Pages answered 403/404 on purpose log their status; those lines are expected.
    const expected = new Set<string>();
    page.on("console", (m) => {
      const url = m.location().url;
      if (expected.has(url) && /status of 40[34]/.test(m.text())) return;
      if (m.type() === "error" && !url.endsWith("/favicon.ico")) {
        problems.push(`${m.text()} ${url}`);
      }
    });
    page.on("pageerror", (e) => problems.push(String(e)));
    const link = async (to: string, kind: "invite" | "reset") => {
      const re = new RegExp(`${base}/admin/${kind}/[0-9A-Za-z]{43}`);
      let found: string[] = [];
      await waitFor(`a ${kind} mail to ${to}`, async () => {
        const mails = await listAccountMail(env.deps, to);
        found = mails.map((m) => re.exec(m.text)?.[0]).filter((l): l is string => !!l);
        return found.length > 0;
      });
      return found.at(-1)!;
    };
    const signOut = async () => {
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByText("You are signed out.").waitFor();
    };

    try {
      let invite = "";
      await t.step("an owner invites a viewer from the members page", async () => {
        await signIn(page, base, "owner@example.com", PASSWORD);
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", {
          name: "Members",
        }).click();
        await page.getByRole("heading", { name: "Members" }).waitFor();
        await assertNoAxeViolations(page, "members");
        await page.getByLabel("Email").fill("viewer@example.com");
        await page.getByLabel("Role", { exact: true }).selectOption("viewer");
        await page.getByRole("button", { name: "Create invitation" }).click();
        await page.getByText("Invitation created for viewer@example.com, but not emailed")
          .waitFor();
        const shown = await page.locator("#invite-link").innerText();
        assert.match(await page.locator("main").innerText(), /viewer@example\.com\s+viewer/);
        await assertNoAxeViolations(page, "members with a pending invitation");
        // At phone width the members page does not scroll sideways (its tables scroll inside).
        await page.setViewportSize({ width: 390, height: 844 });
        const overflow = await page.evaluate(() =>
          document.documentElement.scrollWidth - document.documentElement.clientWidth
        );
        assert.ok(overflow <= 0, `the members page scrolls sideways by ${overflow}px`);
        await page.setViewportSize({ width: 1280, height: 900 });
        invite = await link("viewer@example.com", "invite");
        assert.equal(shown, invite, "the page shows the link the Outbox holds");
        await signOut();
      });

      await t.step("the invitee opens the link, chooses a password and is in", async () => {
        await page.goto(invite);
        await page.getByRole("heading", { name: `Join ${ws.name}` }).waitFor();
        await assertNoAxeViolations(page, "invitation");
        await page.getByLabel("New password", { exact: true }).fill("viewer password 1");
        await page.getByLabel("New password again").fill("viewer password 1");
        await page.getByRole("button", { name: `Join ${ws.name}` }).click();
        await page.waitForURL(`${base}/admin/forms?notice=joined`);
        await page.getByText("You joined the workspace.").waitFor();
        const nav = page.getByRole("navigation", { name: "Main" });
        assert.equal(await nav.getByRole("link", { name: "API keys" }).count(), 0);
        const user = await findUserByEmail(env.deps, "viewer@example.com");
        assert.equal(user && roleIn(user, ws.id), "viewer");
      });

      await t.step("the link does not work a second time", async () => {
        expected.add(invite);
        await page.goto(invite);
        await page.getByRole("heading", { name: "Invitation not valid" }).waitFor();
        await assertNoAxeViolations(page, "used invitation");
        await page.goBack();
      });

      await t.step("a viewer sees no delete or export, and is refused one in words", async () => {
        const list = `${base}/admin/forms/${form.id}/submissions`;
        await page.goto(list);
        await page.getByRole("link", { name: "1", exact: true }).waitFor();
        for (const name of ["Delete selected", "Mark as spam", "Export CSV", "Export JSON"]) {
          assert.equal(await page.getByText(name).count(), 0, `a viewer sees ${name}`);
        }
        assert.equal(await page.getByRole("checkbox").count(), 0);
        // Following an old link: the refusal says why and leads back.
        await page.evaluate((href) => {
          const a = document.createElement("a");
          a.href = href;
          a.textContent = "old export link";
          document.querySelector("main")?.append(a);
        }, `${base}/admin/forms/${form.id}/export.csv`);
        expected.add(`${base}/admin/forms/${form.id}/export.csv`);
        await page.getByRole("link", { name: "old export link" }).click();
        await page.getByRole("heading", { name: "Your role does not allow this" }).waitFor();
        await page.getByText("your role here is viewer").waitFor();
        await assertNoAxeViolations(page, "refusal");
        await page.getByRole("link", { name: "Back to the previous page" }).click();
        await page.waitForURL(list);
        assert.notEqual((await env.deps.kv.get(keys.submission(form.id, sid))).value, null);
      });

      await t.step("the viewer changes their password on the account page", async () => {
        await page.goto(`${base}/admin/forms`);
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", {
          name: "Account",
        }).click();
        await page.getByRole("heading", { name: "Your account" }).waitFor();
        assert.match(await page.locator("main").innerText(), new RegExp(`${ws.name}: viewer`));
        await assertNoAxeViolations(page, "account");
        await page.getByLabel("Current password").fill("viewer password 1");
        await page.getByLabel("New password", { exact: true }).fill("viewer password 2");
        await page.getByLabel("New password again").fill("viewer password 2");
        await page.getByRole("button", { name: "Change password" }).click();
        await page.getByText("Password changed. Your other sessions are signed out.").waitFor();
        await assertNoAxeViolations(page, "account after a change");
        await signOut();
      });

      await t.step(
        "forgotten password: the link the server kept sets a new one, once",
        async () => {
          await page.goto(`${base}/admin/login`);
          await page.getByRole("link", { name: "Forgot your password?" }).click();
          await page.getByRole("heading", { name: "Reset your password" }).waitFor();
          await assertNoAxeViolations(page, "reset request");
          await page.getByLabel("Email").fill("viewer@example.com");
          await page.getByRole("button", { name: "Make reset link" }).click();
          await page.getByText("If an account uses that email").waitFor();
          assert.match(await page.locator("main").innerText(), /server log/);
          await assertNoAxeViolations(page, "reset requested");
          const reset = await link("viewer@example.com", "reset");
          await page.goto(reset);
          await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
          await assertNoAxeViolations(page, "reset form");
          await page.getByLabel("New password", { exact: true }).fill("viewer password 3");
          await page.getByLabel("New password again").fill("viewer password 3");
          await page.getByRole("button", { name: "Set new password" }).click();
          await page.getByText("Password changed. Sign in with the new one.").waitFor();
          await assertNoAxeViolations(page, "sign-in after a reset");
          expected.add(reset);
          await page.goto(reset);
          await page.getByRole("heading", { name: "Reset link not valid" }).waitFor();
          await signIn(page, base, "viewer@example.com", "viewer password 3");
        },
      );

      await t.step("strangers' failures do not lock out this browser", async () => {
        await signOut();
        for (let i = 0; i < 8; i++) {
          const res = await fetch(`${base}/admin/login`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ email: "viewer@example.com", password: `guess ${i}` }),
          });
          await res.body?.cancel();
          assert.equal(res.status, i < 5 ? 401 : 429);
        }
        await signIn(page, base, "viewer@example.com", "viewer password 3");
      });

      assert.deepEqual(problems, [], "no console errors (CSP violations, island failures)");
    } finally {
      await browser.close();
      await server.shutdown();
      env.close();
      await jobs;
    }
  },
});
