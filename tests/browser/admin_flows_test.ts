/**
 * Issue 18's admin fixes and flows in headless Chromium against the real app on a free
 * port, with axe-core on every page touched: API keys (post/redirect/get), the builder's
 * checks and collapsed cards, workspaces (switch to new, confirm suspend), the submissions
 * list (filters kept on delete, nothing ticked, select-all, page size, past the end) and a
 * submission's page (newer/older, read/unread, delete), at 390 px too.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { createUser } from "@/lib/admin/users.ts";
import { createForm, getForm } from "@/lib/forms/forms.ts";
import { listFormSummaries } from "@/lib/admin/forms.ts";
import { listApiKeys } from "@/lib/keys/api_keys.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Submission } from "@/lib/schemas.ts";
import { seedSubmissions } from "@/bench/seed.ts";
import { listWorkspaces } from "@/lib/workspaces/workspaces.ts";
import { CONTACT_FORM, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { freePort } from "@/tests/processes.ts";
import { assertNoAxeViolations } from "./axe.ts";
import { openPage, serveApp, signIn } from "./admin_session.ts";
import { chromiumPresent } from "./chromium.ts";

const PASSWORD = "browser-flows-password";

/** The page's own width overflow (tables scroll inside `.table-wrap`, the page must not). */
function overflow(page: Page): Promise<number> {
  return page.evaluate<number>(
    "document.documentElement.scrollWidth - document.documentElement.clientWidth",
  );
}

Deno.test({
  name: "admin browser - issue 18 fixes and flows, with axe on every page",
  ignore: !(await chromiumPresent()),
  async fn(t) {
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = await testEnv({ BASE_URL: base, TRUST_PROXY: "0" });
    const ws = await makeWorkspace(env.deps, "starter");
    const free = await makeWorkspace(env.deps, "free");
    await createUser(env.deps, {
      email: "owner@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id, free.id],
      role: "owner",
      owner: true,
    });
    const form = await createForm(env.deps, ws.id, CONTACT_FORM);
    // 25 live submissions, oldest first; every fifth is spam (numbers 5, 10, ..., 25).
    const ids = await seedSubmissions(env.deps, form, 25, {
      status: (i) => ((i + 1) % 5 === 0 ? "spam" : "completed"),
      fields: (i) => ({ name: `Person ${i + 1}`, email: `p${i + 1}@example.com` }),
    });
    const server = serveApp(env, port);
    const { browser, page } = await openPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    const hydrated = (name: string) =>
      page.locator(`[data-island="${name}"][data-hydrated]`).first().waitFor();
    const subs = `${base}/admin/forms/${form.id}/submissions`;

    try {
      await t.step("sign in", async () => {
        await signIn(page, base, "owner@example.com", PASSWORD);
      });

      await t.step("a created key is shown once and a reload creates no second key", async () => {
        await page.goto(`${base}/admin/keys`);
        await page.getByLabel("Name").fill("Backend");
        await page.getByRole("button", { name: "Create key" }).click();
        await page.waitForURL(/\/admin\/keys\?created=/);
        const raw = await page.locator("#new-key").textContent();
        assert.match(raw ?? "", /^fw_live_/);
        await assertNoAxeViolations(page);
        await page.reload();
        await page.getByText("shown only once").waitFor();
        assert.equal(await page.locator("#new-key").count(), 0);
        assert.equal(await page.content().then((h) => h.includes(raw!)), false);
        assert.equal((await listApiKeys(env.deps, ws.id)).length, 1);
      });

      await t.step("the revoke page says what happens in words", async () => {
        await page.getByRole("link", { name: "Revoke" }).click();
        await page.getByRole("heading", { name: 'Revoke "Backend"?' }).waitFor();
        const text = await page.locator("main").innerText();
        assert.doesNotMatch(text, /Invalid API key\./);
        assert.match(text, /refused as unauthorized/);
        await assertNoAxeViolations(page);
        await page.getByRole("button", { name: "Revoke key" }).click();
        await page.waitForURL(/notice=key_revoked/);
      });

      await t.step("the builder checks fields before saving and keeps cards closed", async () => {
        await page.goto(`${base}/admin/forms/new`);
        await hydrated("FieldBuilder");
        // The starter set's three cards are closed: no card shows its inputs.
        assert.equal(await page.locator(".field-card").count(), 3);
        assert.equal(await page.getByLabel("Name (data key)").count(), 0);
        await page.getByLabel("Form name").fill("Checked form");
        for (const name of ["name", "email", "message"]) {
          await page.getByRole("button", { name: `Remove ${name}` }).click();
        }
        await page.getByRole("button", { name: "Create form" }).click();
        await page.getByRole("alert").getByText("Add at least one field").waitFor();
        assert.equal(page.url(), `${base}/admin/forms/new`);
        // A new card opens alone; a rule that is no number is named in words.
        await page.locator("#add-type").selectOption("text");
        await page.getByRole("button", { name: "Add field" }).click();
        await page.getByLabel("Max length").fill("ten");
        assert.equal(await page.getByLabel("Name (data key)").count(), 1);
        await page.getByRole("button", { name: "Create form" }).click();
        await page.getByText('Field 1 "field_1": Max length must be a number.').waitFor();
        assert.equal(page.url(), `${base}/admin/forms/new`);
        await assertNoAxeViolations(page);
        await page.getByLabel("Max length").fill("10");
        await page.getByRole("button", { name: "Create form" }).click();
        await page.waitForURL(/notice=form_created/);
      });

      await t.step("the submissions list: past the end, page size, select-all", async () => {
        await page.goto(`${subs}?page=999`);
        await page.getByRole("heading", { name: "There is no page 999" }).waitFor();
        assert.equal(await page.getByText("No live submissions yet").count(), 0);
        await assertNoAxeViolations(page);
        await page.getByRole("link", { name: "Go to page 2" }).click();
        await page.getByLabel("Per page").selectOption("10");
        await page.getByRole("button", { name: "Apply" }).click();
        await page.waitForURL(/limit=10/);
        assert.equal(await page.locator('tbody input[name="ids"]').count(), 10);
        await hydrated("SelectAll");
        await page.getByLabel("Select all on this page").check();
        assert.equal(await page.locator('tbody input[name="ids"]:checked').count(), 10);
        await page.getByLabel("Select all on this page").uncheck();
        assert.equal(await page.locator('tbody input[name="ids"]:checked').count(), 0);
        await assertNoAxeViolations(page);
      });

      await t.step(
        "deleting from a filtered list keeps the filter; nothing ticked says so",
        async () => {
          await page.goto(`${subs}?status=spam`);
          await page.getByRole("button", { name: "Delete selected" }).click();
          await page.getByText("Nothing was deleted: tick the submissions").waitFor();
          assert.match(page.url(), /status=spam/);
          await page.getByLabel("Select submission 25").check();
          await page.getByRole("button", { name: "Delete selected" }).click();
          await page.getByRole("heading", { name: "Delete submissions?" }).waitFor();
          await assertNoAxeViolations(page);
          await page.getByRole("button", { name: "Delete 1 submission" }).click();
          await page.waitForURL(/notice=deleted/);
          assert.match(page.url(), /status=spam/);
          const gone = await env.deps.kv.get(keys.submission(form.id, ids[24]));
          assert.equal(gone.value, null);
          assert.equal(await page.locator("tbody tr").count(), 4);
        },
      );

      await t.step("a submission's page: newer/older, read/unread, delete", async () => {
        await page.goto(subs);
        const row = page.locator("tbody tr").filter({ hasText: "Person 22" });
        assert.equal(await row.locator(".badge", { hasText: "new" }).count(), 1);
        await row.getByRole("link", { name: "22" }).click();
        await page.getByRole("heading", { name: "Submission #22" }).waitFor();
        assert.match(await page.locator("main").innerText(), /without a browser Origin/);
        assert.doesNotMatch(await page.locator("main").innerText(), /Not scored yet/);
        await assertNoAxeViolations(page);
        await page.getByRole("link", { name: "Older" }).click();
        await page.getByRole("heading", { name: "Submission #21" }).waitFor();
        await page.getByRole("link", { name: "Newer" }).click();
        await page.getByRole("heading", { name: "Submission #22" }).waitFor();
        await page.getByRole("link", { name: "All submissions" }).click();
        assert.equal(await row.locator(".badge", { hasText: "new" }).count(), 0);
        await row.getByRole("link", { name: "22" }).click();
        await page.getByRole("button", { name: "Mark as unread" }).click();
        await page.waitForURL(/notice=marked_unread/);
        assert.equal(await row.locator(".badge", { hasText: "new" }).count(), 1);
        await row.getByRole("link", { name: "22" }).click();
        await page.getByRole("link", { name: "Delete", exact: true }).click();
        await page.getByRole("heading", { name: "Delete submission #22?" }).waitFor();
        await assertNoAxeViolations(page);
        await page.getByRole("button", { name: "Delete submission" }).click();
        // Lands on the next older one.
        await page.getByRole("heading", { name: "Submission #21" }).waitFor();
        const sub = await env.deps.kv.get<Submission>(keys.submission(form.id, ids[21]));
        assert.equal(sub.value, null);
      });

      await t.step("duplicate, archive, and delete a form after typing its name", async () => {
        const all = await listFormSummaries(env.deps, ws.id);
        const checked = all.find((f) => f.form.name === "Checked form")!.form;
        await seedSubmissions(env.deps, checked, 3);
        await page.goto(`${base}/admin/forms/${checked.id}`);
        await page.getByRole("button", { name: "Duplicate" }).click();
        await page.waitForURL(/notice=form_duplicated/);
        await page.getByRole("heading", { name: "Checked form (copy)" }).waitFor();
        await assertNoAxeViolations(page);
        await page.getByRole("button", { name: "Archive" }).click();
        await page.waitForURL(/\/admin\/forms\?notice=form_archived/);
        await page.getByText("Archived forms").click();
        await page.locator("details.archived").getByText("Checked form (copy)").waitFor();
        await assertNoAxeViolations(page);
        await page.goto(`${base}/admin/forms/${checked.id}/delete`);
        await page.getByText("its 3 submissions").waitFor();
        await assertNoAxeViolations(page);
        await page.getByLabel(/Type the form's name/).fill("Checked");
        await page.getByRole("button", { name: "Delete form and submissions" }).click();
        await page.getByText("The name does not match").waitFor();
        assert.ok(await getForm(env.deps, checked.id));
        await page.getByLabel(/Type the form's name/).fill("Checked form");
        await page.getByRole("button", { name: "Delete form and submissions" }).click();
        await page.waitForURL(/notice=form_deleted/);
        assert.equal(await getForm(env.deps, checked.id), null);
        const left = await Array.fromAsync(
          env.deps.kv.list({ prefix: keys.submissions(checked.id) }),
        );
        assert.equal(left.length, 0);
      });

      await t.step("a new workspace is switched to; suspending asks first", async () => {
        await page.goto(`${base}/admin/workspaces`);
        await page.getByLabel("Name").fill("Second team");
        await page.getByRole("button", { name: "Create workspace" }).click();
        await page.waitForURL(/\/admin\/forms\?notice=workspace_created/);
        const selected = await page.locator("#ws-switch option:checked").textContent();
        assert.equal(selected?.trim(), "Second team");
        await page.goto(`${base}/admin/workspaces`);
        await page.getByRole("link", { name: `Suspend ${ws.name}` }).click();
        await page.getByRole("heading", { name: `Suspend ${ws.name}?` }).waitFor();
        assert.match(await page.locator("main").innerText(), /Its 2 forms go offline/);
        await assertNoAxeViolations(page);
        assert.equal(
          (await listWorkspaces(env.deps)).find((w) => w.id === ws.id)?.suspended,
          false,
        );
        await page.getByRole("button", { name: "Suspend workspace" }).click();
        await page.waitForURL(/notice=workspace_saved/);
        assert.equal((await listWorkspaces(env.deps)).find((w) => w.id === ws.id)?.suspended, true);
        await assertNoAxeViolations(page);
      });

      await t.step("the free plan's keys page has its notice and no empty state", async () => {
        await page.locator("#ws-switch").selectOption(free.id);
        await page.getByRole("button", { name: "Switch" }).click();
        await page.goto(`${base}/admin/keys`);
        await page.getByText("need the Starter plan").waitFor();
        assert.equal(await page.getByText("No keys yet").count(), 0);
        await assertNoAxeViolations(page);
      });

      await t.step("at 390 px wide no admin page is wider than the screen", async () => {
        await page.setViewportSize({ width: 390, height: 844 });
        const wide: string[] = [];
        for (
          const path of [
            "/admin/forms",
            "/admin/keys",
            "/admin/workspaces",
            `/admin/forms/${form.id}/submissions`,
            `/admin/forms/${form.id}/submissions/${ids[0]}`,
          ]
        ) {
          await page.goto(`${base}${path}`);
          const by = await overflow(page);
          if (by > 0) wide.push(`${path}: ${by}px`);
        }
        assert.deepEqual(wide, []);
      });
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
      await server.shutdown();
      env.close();
    }
  },
});
