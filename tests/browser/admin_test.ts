/**
 * The whole admin path in headless Chromium (playwright-core, Debian's chromium) against
 * the real app on a free port. Screenshots of each main page go to test-artifacts/admin/.
 */
import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { createUser } from "@/lib/admin/users.ts";
import { makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { freePort } from "@/tests/processes.ts";
import { assertCountersExact } from "@/tests/recount.ts";
import { chromiumPresent, launchChromium } from "./chromium.ts";

const ARTIFACTS = new URL("../../test-artifacts/admin/", import.meta.url).pathname;
const PASSWORD = "browser-test-password";

function parseCsv(text: string): string[][] {
  // The export quotes only cells with , " or line breaks; the test data has none inside
  // quotes except doubled quotes, so a small parser suffices.
  const rows: string[][] = [];
  for (const line of text.replace(/^\uFEFF/, "").trimEnd().split("\r\n")) {
    const cells: string[] = [];
    let cur = "";
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i];
      if (quoted) {
        if (ch === '"' && line[i + 1] === '"') cur += '"', i++;
        else if (ch === '"') quoted = false;
        else cur += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === ",") cells.push(cur), cur = "";
      else cur += ch;
    }
    cells.push(cur);
    rows.push(cells);
  }
  return rows;
}

Deno.test({
  name: "admin browser - the whole admin path",
  ignore: !(await chromiumPresent()),
  async fn(t) {
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = await testEnv({ BASE_URL: base, TRUST_PROXY: "0" });
    const ws = await makeWorkspace(env.deps, "starter");
    await createUser(env.deps, {
      email: "admin@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "owner",
      owner: true,
    });
    // What the server saw of each POST, to check what the browser itself sends.
    const posts: Headers[] = [];
    const server = Deno.serve(
      { hostname: "127.0.0.1", port, onListen: () => {} },
      (req, info) => {
        if (req.method === "POST") posts.push(req.headers);
        return env.app.fetch(req, { remoteAddr: info.remoteAddr });
      },
    );
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const browser = await launchChromium({
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    const context = browser.context;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
    const page = context.pages()[0] ?? await context.newPage();
    page.setDefaultTimeout(10_000);
    const problems: string[] = [];
    // A URL whose 403 the current step provokes on purpose (its console line is expected).
    let refusedUrl = "";
    page.on("console", (m) => {
      // Browsers ask for /favicon.ico on their own; the admin has none.
      const url = m.location().url;
      if (url === refusedUrl && m.text().includes("status of 403")) return;
      if (m.type() === "error" && !url.endsWith("/favicon.ico")) {
        problems.push(`${m.text()} ${url}`);
      }
    });
    page.on("pageerror", (e) => problems.push(String(e)));
    const shot = (name: string) =>
      page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
    const api = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, init);
    // The island entry marks each island once hydrated (lib/ui/islands.ts): no sleeps.
    const hydrated = (name: string, within = "body") =>
      page.locator(`${within} [data-island="${name}"][data-hydrated]`).waitFor();

    try {
      await t.step("sign in", async () => {
        await page.goto(`${base}/admin`);
        assert.ok(page.url().startsWith(`${base}/admin/login`));
        await shot("01-login");
        await page.getByLabel("Email").fill("admin@example.com");
        await page.getByLabel("Password").fill(PASSWORD);
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.waitForURL(`${base}/admin/forms`);
        await page.getByRole("heading", { name: "Forms", exact: true }).waitFor();
        await shot("02-forms-empty");
      });

      let formId = "";
      await t.step("create a form with three field types in the builder", async () => {
        await page.getByRole("link", { name: "New form" }).first().click();
        // The builder is server-rendered; clicks do nothing until its handlers are live.
        await hydrated("FieldBuilder");
        await page.getByLabel("Form name").fill("Browser signup");
        // The starter set is name (text), email, message (textarea): swap the textarea
        // for a select with options, and move it to the top.
        await page.getByRole("button", { name: "Remove message" }).click();
        await page.locator("#add-type").selectOption("select");
        await page.getByRole("button", { name: "Add field" }).click();
        const card = page.locator(".field-card").last();
        await card.getByLabel("Name (data key)").fill("topic");
        await card.getByLabel("Options (one per line)").fill("sales\nsupport");
        await page.getByRole("button", { name: "Move topic up" }).click();
        await page.getByRole("button", { name: "Move topic up" }).click();
        // The preview follows the builder.
        await page.locator(".preview select").waitFor();
        await shot("03-form-editor");
        await page.getByRole("button", { name: "Create form" }).click();
        await page.waitForURL(/\/admin\/forms\/f[0-9A-Za-z]+\?notice=form_created$/);
        formId = new URL(page.url()).pathname.split("/")[3];
        const form = await env.deps.kv.get<{ fields: { name: string; type: string }[] }>(
          keys.form(formId),
        );
        assert.deepEqual(
          form.value?.fields.map((f) => `${f.name}:${f.type}`),
          ["topic:select", "name:text", "email:email"],
        );
      });

      await t.step("a cross-site POST to a mutation is refused and changes nothing", async () => {
        const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
        // With the session cookie and even the right CSRF token, a foreign Origin and
        // Sec-Fetch-Site: cross-site are enough to refuse closing the form.
        const res = await page.request.post(`${base}/admin/forms/${formId}`, {
          form: { _csrf: csrf, accepting: "off" },
          headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
          maxRedirects: 0,
        });
        assert.equal(res.status(), 403);
        assert.match(await res.text(), /Cross-site request blocked/);
        // The same from a real page on another site: Chromium itself sends the headers.
        await page.route("http://evil.example/**", (route) =>
          route.fulfill({
            contentType: "text/html",
            body: `<form method="post" action="${base}/admin/forms/${formId}">` +
              `<input name="accepting" value="off"><button>Go</button></form>`,
          }));
        refusedUrl = `${base}/admin/forms/${formId}`;
        await page.goto("http://evil.example/");
        const [answer] = await Promise.all([
          page.waitForResponse(`${base}/admin/forms/${formId}`),
          page.getByRole("button", { name: "Go" }).click(),
        ]);
        assert.equal(answer.status(), 403);
        const seen = posts.at(-1)!;
        assert.equal(seen.get("sec-fetch-site"), "cross-site");
        assert.equal(seen.get("origin"), "http://evil.example");
        await page.unroute("http://evil.example/**");
        const form = await env.deps.kv.get<{ accepting: boolean }>(keys.form(formId));
        assert.equal(form.value?.accepting, true, "the form still accepts submissions");
        await page.goto(`${base}/admin/forms/${formId}`);
      });

      const sent: string[] = [];
      await t.step("submissions sent with the API appear in the table", async () => {
        await api(`/api/v1/forms/p/${formId}/events`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ type: "view" }),
        }).then((r) => r.body?.cancel());
        for (const [name, topic] of [["Ada", "sales"], ["=1+2", "support"]]) {
          const res = await api(`/api/v1/submit/p/${formId}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ data: { name, email: "ada@example.com", topic } }),
          });
          assert.equal(res.status, 201);
          sent.push((await res.json()).submission_id);
        }
        await page.reload();
        await page.locator(".chart svg").waitFor();
        await shot("04-form-overview");
        await page.getByRole("navigation", { name: "Form" }).getByRole("link", {
          name: "Submissions",
        }).click();
        await page.getByRole("link", { name: "2", exact: true }).waitFor();
        assert.match(await page.locator("table").innerText(), /Ada/);
        await shot("05-submissions");
      });

      await t.step("mark one as spam", async () => {
        await page.getByRole("link", { name: "1", exact: true }).click();
        await page.getByRole("heading", { name: "Submission #1" }).waitFor();
        await page.getByRole("button", { name: "Mark as spam" }).click();
        await page.getByText("Marked as spam.").waitFor();
        await page.getByRole("button", { name: "Not spam" }).waitFor();
        await shot("06-submission-detail");
        const s = await readSubmission(env.deps.kv, formId, sent[0]);
        assert.equal(s?.status, "spam");
        await assertCountersExact(env.deps.kv, formId, "live");
      });

      await t.step("export CSV and compare rows", async () => {
        await page.getByRole("link", { name: "← All submissions" }).click();
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          page.getByRole("link", { name: "Export CSV" }).click(),
        ]);
        const rows = parseCsv(await Deno.readTextFile(await download.path()));
        assert.deepEqual(rows[0], [
          "id",
          "submission_number",
          "created_at",
          "status",
          "topic",
          "name",
          "email",
          "metadata",
        ]);
        assert.equal(rows.length, 3);
        assert.deepEqual(rows[1].slice(0, 2), [sent[1], "2"]);
        assert.deepEqual(rows[1].slice(3, 7), ["completed", "support", "'=1+2", "ada@example.com"]);
        assert.deepEqual(rows[2].slice(0, 2), [sent[0], "1"]);
        assert.deepEqual(rows[2].slice(3, 7), ["spam", "sales", "Ada", "ada@example.com"]);
      });

      let rawKey = "";
      await t.step("create a key, copy it, use it with the Server Data API", async () => {
        await page.getByRole("link", { name: "API keys" }).click();
        await page.getByText("No keys yet").waitFor();
        await page.getByLabel("Name").fill("CI backend");
        await page.getByRole("button", { name: "Create key" }).click();
        rawKey = (await page.locator("#new-key").innerText()).trim();
        assert.match(rawKey, /^fw_live_[0-9A-Za-z]{38}$/);
        await hydrated("CopyButton", ".reveal");
        await page.locator(".reveal").getByRole("button", { name: "Copy" }).click();
        await page.locator(".reveal").getByRole("button", { name: "Copied" }).waitFor();
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), rawKey);
        await shot("07-api-key-created");
        const res = await api(`/api/v1/server/forms/${formId}/submissions`, {
          headers: { authorization: `Bearer ${rawKey}` },
        });
        assert.equal(res.status, 200);
        const body = await res.json();
        assert.deepEqual(body.submissions.map((s: { id: string }) => s.id), [sent[1], sent[0]]);
      });

      await t.step("revoke it and see 401", async () => {
        await page.goto(`${base}/admin/keys`);
        assert.doesNotMatch(await page.content(), new RegExp(rawKey));
        await page.getByRole("link", { name: "Revoke" }).click();
        await page.getByRole("heading", { name: 'Revoke "CI backend"?' }).waitFor();
        await shot("08-revoke-confirm");
        await page.getByRole("button", { name: "Revoke key" }).click();
        await page.getByText("API key revoked.").waitFor();
        const res = await api(`/api/v1/server/forms/${formId}/submissions`, {
          headers: { authorization: `Bearer ${rawKey}` },
        });
        assert.equal(res.status, 401);
        assert.equal((await res.json()).error, "Invalid API key.");
      });

      await t.step("the forms list counts the submissions", async () => {
        await page.goto(`${base}/admin/forms`);
        const row = page.locator("tr", { hasText: "Browser signup" });
        assert.match(await row.innerText(), /\b2\s+1\b/, "2 submissions, 1 of them spam");
        await shot("09-forms-list");
      });

      await t.step("readable at phone width", async () => {
        await page.setViewportSize({ width: 390, height: 844 });
        await page.goto(`${base}/admin/forms/${formId}/submissions`);
        const overflow = await page.evaluate(() =>
          document.documentElement.scrollWidth - document.documentElement.clientWidth
        );
        assert.ok(overflow <= 0, `page scrolls sideways by ${overflow}px`);
        await shot("10-submissions-phone");
        await page.goto(`${base}/admin/forms/${formId}/edit`);
        // The server-rendered builder shows each field's own type (cards start closed).
        const types = await page.locator(".field-card-head .badge").allInnerTexts();
        assert.deepEqual(types, ["select", "text", "email"]);
        await shot("11-editor-phone");
        await page.setViewportSize({ width: 1280, height: 900 });
      });

      await t.step("sign out", async () => {
        await page.getByRole("button", { name: "Sign out" }).click();
        await page.getByText("You are signed out.").waitFor();
        await page.goto(`${base}/admin/forms`);
        assert.ok(page.url().startsWith(`${base}/admin/login`));
      });

      assert.deepEqual(problems, [], "no console errors (CSP violations, island failures)");
    } finally {
      await browser.close();
      await server.shutdown();
      env.close();
    }
  },
});
