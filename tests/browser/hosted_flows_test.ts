/**
 * Issue 18's visitor-side fixes in headless Chromium against the real app on a free port:
 * input kept after a refused post (never the error redirect) and after a label-only edit,
 * the error summary following the fields, file help said once, the required checkbox in
 * words, intro and thank-you texts, the landing page and HTML 404, favicon, dark mode, and
 * an uploaded image previewed inline in the admin. axe-core on every page, light and dark.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { createUser } from "@/lib/admin/users.ts";
import { updateForm } from "@/lib/forms/forms.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Form, FormDefinition, Submission } from "@/lib/schemas.ts";
import { PASSWORD } from "@/tests/admin_support.ts";
import { makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { freePort } from "@/tests/processes.ts";
import { SAMPLES } from "@/tests/upload_fixtures.ts";
import { assertNoAxeViolations } from "./axe.ts";
import { chromiumPresent, launchChromium } from "./chromium.ts";

const CALLBACK: FormDefinition = {
  name: "Callback request",
  intro: "We call back within one working day.\n\nNo sales calls, <b>promise</b>.",
  thank_you: "Thanks! We will call you within one working day.",
  fields: [
    { name: "name", label: "Your name", type: "text", required: true },
    { name: "phone", label: "Phone", type: "tel", required: true, help: "With the area code." },
    {
      name: "doc",
      label: "Document",
      type: "file",
      allowedTypes: ["image/png", "application/pdf", "text/plain"],
      maxSizeMB: 2,
      help: "PNG, PDF or text, up to 2 MB",
    },
    { name: "photo", label: "Photo", type: "image", allowedTypes: ["image/png"], maxSizeMB: 1 },
    { name: "consent", label: "I agree to be contacted", type: "boolean", required: true },
  ],
  redirect: { error: "https://example.com/oops" },
};

/** The summary's items as shown, or [] when no summary shows. */
function summaryItems(page: Page): Promise<string[]> {
  return page.locator("#form-notice li").allInnerTexts();
}

/** Waits (bounded by the page's timeout) until the summary lists exactly `want`. */
async function waitSummary(page: Page, want: string[]) {
  await page.waitForFunction(
    (w) =>
      JSON.stringify(
        [...document.querySelectorAll("#form-notice li")].map((li) =>
          (li as HTMLElement).innerText
        ),
      ) === JSON.stringify(w),
    want,
  );
}

async function storedSubmissions(kv: Deno.Kv, form: Form): Promise<Submission[]> {
  const all: Submission[] = [];
  for await (const e of kv.list<Submission>({ prefix: keys.submissions(form.id) })) {
    all.push(e.value);
  }
  return all;
}

Deno.test({
  name: "hosted flows browser - input kept, live summary, texts, landing, dark mode, preview",
  ignore: !(await chromiumPresent()),
  async fn(t) {
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = await testEnv({ BASE_URL: base, TRUST_PROXY: "0" });
    const ws = await makeWorkspace(env.deps, "starter");
    await createUser(env.deps, {
      email: "owner@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "owner",
      owner: true,
    });
    const form = await makeForm(env.deps, ws, CALLBACK);
    const server = Deno.serve(
      { hostname: "127.0.0.1", port, onListen: () => {} },
      (req, info) => env.app.fetch(req, { remoteAddr: info.remoteAddr }),
    );
    const js = await launchChromium({ viewport: { width: 1000, height: 900 } });
    const noJs = await launchChromium({ javaScriptEnabled: false });
    const png = await Deno.makeTempFile({ suffix: ".png" });
    await Deno.writeFile(png, SAMPLES.png);
    const open = async (ctx: typeof js.context) => {
      const page = await ctx.newPage();
      page.setDefaultTimeout(15_000);
      return page;
    };
    /** axe in light and dark mode; dark must really be dark. */
    const axeBoth = async (page: Page, label: string) => {
      await assertNoAxeViolations(page, `${label} (light)`);
      await page.emulateMedia({ colorScheme: "dark" });
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(bg, "rgb(13, 17, 23)", `${label}: dark background`);
      await assertNoAxeViolations(page, `${label} (dark)`);
      await page.emulateMedia({ colorScheme: "light" });
    };

    try {
      await t.step("texts: intro as escaped paragraphs, file help said once", async () => {
        const page = await open(js.context);
        await page.goto(`${base}/f/${form.id}`);
        const intro = await page.locator("p.intro").allInnerTexts();
        assert.deepEqual(intro, [
          "We call back within one working day.",
          "No sales calls, <b>promise</b>.",
        ]);
        assert.equal(
          await page.locator("#f-fld_doc-help").innerText(),
          "PNG, PDF or text, up to 2 MB",
        );
        assert.equal(await page.locator("#f-fld_photo-help").innerText(), "PNG, up to 1 MB.");
        await axeBoth(page, "hosted form");
        await page.close();
      });

      await t.step("JS: the error summary follows the fields as they are fixed", async () => {
        const page = await open(js.context);
        await page.goto(`${base}/f/${form.id}`);
        await page.getByRole("button", { name: "Send" }).click();
        await waitSummary(page, [
          "Your name is required.",
          "Phone is required.",
          "Please tick “I agree to be contacted”.",
        ]);
        const text = await page.locator("#form-notice").innerText();
        assert.doesNotMatch(text, /I agree to be contacted is required/);
        await page.getByLabel("Your name").fill("Ada");
        await page.getByLabel("Your name").press("Tab");
        await waitSummary(page, ["Phone is required.", "Please tick “I agree to be contacted”."]);
        await page.getByLabel("I agree to be contacted").check();
        await waitSummary(page, ["Phone is required."]);
        await page.getByLabel("Phone").fill("+44 20 7946 0000");
        await page.getByLabel("Phone").press("Tab");
        await page.locator("#form-notice.notice-empty").waitFor({ state: "attached" });
        assert.deepEqual(await summaryItems(page), []);

        // A help-text edit while the page is open: no 409, the visitor's send goes through.
        await page.getByLabel("Photo").setInputFiles(png);
        await page.getByText("Uploaded").waitFor();
        const before = form.schema_version;
        const edited = await updateForm(env.deps, form.id, {
          ...CALLBACK,
          fields: CALLBACK.fields!.map((f) =>
            f.name === "phone" ? { ...f, help: "Mobile or landline.", label: "Phone" } : f
          ),
        });
        assert.equal(edited.schema_version, before, "a help edit keeps the schema version");
        await page.getByRole("button", { name: "Send" }).click();
        await page.waitForURL(/\/thanks\?submission_id=sub_/);
        assert.match(
          await page.locator("main").innerText(),
          /Thanks! We will call you within one working day\./,
        );
        await axeBoth(page, "thank-you page");
        await page.close();
      });

      await t.step("JS: a real schema change re-renders the page with the input", async () => {
        const page = await open(js.context);
        await page.goto(`${base}/f/${form.id}`);
        await page.getByLabel("Your name").fill("Grace");
        await page.getByLabel("Phone").fill("020 7946 0001");
        await page.getByLabel("I agree to be contacted").check();
        const changed = await updateForm(env.deps, form.id, {
          ...CALLBACK,
          fields: [...CALLBACK.fields!, { name: "company", label: "Company", type: "text" }],
        });
        assert.equal(changed.schema_version, form.schema_version + 1);
        await page.getByRole("button", { name: "Send" }).click();
        await page.getByText("This form changed since you opened it").waitFor();
        assert.ok(page.url().startsWith(`${base}/api/v1/submit/p/${form.id}`), page.url());
        assert.equal(await page.getByLabel("Your name").inputValue(), "Grace");
        assert.equal(await page.getByLabel("Phone").inputValue(), "020 7946 0001");
        await axeBoth(page, "re-rendered form");
        await page.close();
      });

      await t.step(
        "no JS: a validation error keeps the input, not the error redirect",
        async () => {
          const page = await open(noJs.context);
          await page.goto(`${base}/f/${form.id}`);
          await page.getByLabel("Your name").fill("Ada");
          await page.getByLabel("Phone").fill("not a number");
          await page.getByLabel("I agree to be contacted").check();
          const [res] = await Promise.all([
            page.waitForResponse((r) => r.url().includes("/api/v1/submit/p/")),
            page.getByRole("button", { name: "Send" }).click(),
          ]);
          assert.equal(res.status(), 422);
          await page.getByText("Phone must be a phone number.").first().waitFor();
          assert.ok(page.url().startsWith(base), `stayed on our page: ${page.url()}`);
          assert.equal(await page.getByLabel("Your name").inputValue(), "Ada");
          assert.equal(await page.getByLabel("Phone").inputValue(), "not a number");
          assert.ok(await page.getByLabel("I agree to be contacted").isChecked());
          await page.close();
        },
      );

      await t.step("landing page, HTML 404, favicon (with and without JS)", async () => {
        for (const ctx of [noJs.context, js.context]) {
          const page = await open(ctx);
          const home = await page.goto(`${base}/`);
          assert.equal(home?.status(), 200);
          assert.equal(await page.locator("h1").innerText(), "Formwell");
          assert.ok(await page.getByRole("link", { name: "Sign in" }).isVisible());
          const icon = await page.locator("link[rel=icon]").getAttribute("href");
          const fav = await page.request.get(`${base}/favicon.ico`);
          assert.equal(fav.status(), 200);
          assert.equal(fav.headers()["content-type"], "image/svg+xml");
          assert.equal(icon, "/static/favicon.svg");
          if (ctx === js.context) await axeBoth(page, "landing page");
          const missing = await page.goto(`${base}/no/such/page`);
          assert.equal(missing?.status(), 404);
          assert.equal(await page.locator("h1").innerText(), "Page not found");
          if (ctx === js.context) await axeBoth(page, "404 page");
          await page.close();
        }
      });

      await t.step("admin: an uploaded PNG is previewed inline on the submission", async () => {
        const sub = (await storedSubmissions(env.deps.kv, form)).find((s) =>
          s.fields.photo !== undefined
        );
        assert.ok(sub, "the submission with the photo");
        const page = await open(js.context);
        await page.goto(`${base}/admin/login`);
        await page.getByLabel("Email").fill("owner@example.com");
        await page.getByLabel("Password").fill(PASSWORD);
        await page.getByRole("button", { name: /sign in/i }).click();
        await page.waitForURL((u) => !u.pathname.startsWith("/admin/login"));
        await page.goto(`${base}/admin/forms/${form.id}/submissions/${sub.id}`);
        const img = page.getByRole("img", {
          name: `Preview of ${(sub.fields.photo as { originalFilename: string }).originalFilename}`,
        });
        await img.waitFor();
        await page.waitForFunction(() => {
          const el = document.querySelector("img.file-preview") as HTMLImageElement | null;
          return !!el && el.complete && el.naturalWidth === 1;
        });
        await axeBoth(page, "submission page");
        await page.close();
      });
    } finally {
      await js.close();
      await noJs.close();
      await server.shutdown();
      env.close();
      await Deno.remove(png).catch(() => {});
    }
  },
});
