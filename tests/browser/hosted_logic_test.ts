/**
 * The hosted page of a form with logic in headless Chromium against the real app: a
 * conditional field appearing, steps with progress and Back/Next checked through
 * validate, a computed total updating live, prefill from the address, the stepped page
 * posted without JavaScript, and the Arabic page right to left, axe-clean and without
 * horizontal overflow at desktop and phone widths.
 */
import assert from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import { formAnalytics } from "@/lib/forms/analytics.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Form, FormDefinition, Submission } from "@/lib/schemas.ts";
import { makeForm, makeWorkspace, type TestEnv, testEnv } from "@/tests/helpers.ts";
import { freePort } from "@/tests/processes.ts";
import { assertNoAxeViolations } from "./axe.ts";
import { chromiumPresent, launchChromium } from "./chromium.ts";

const ARTIFACTS = new URL("../../test-artifacts/hosted-logic/", import.meta.url).pathname;
const PHONE = { width: 390, height: 844 };
const ARABIC = /[\u0600-\u06FF]/;
const DESKTOP = { width: 1280, height: 900 };

/** The order form of docs/forms-logic.md, with German and Arabic texts. */
const ORDER: FormDefinition = {
  name: "Order",
  fields: [
    {
      name: "customer_type",
      label: "You order as",
      type: "radio",
      options: ["person", "company"],
      required: true,
      default: "person",
    },
    { name: "name", label: "Your name", type: "text", required: true },
    { name: "email", label: "Email", type: "email", required: true },
    {
      name: "company",
      label: "Company name",
      type: "text",
      required: true,
      when: { "==": [{ var: "customer_type" }, "company"] },
    },
    {
      name: "vat_id",
      label: "VAT id",
      type: "text",
      when: { "==": [{ var: "customer_type" }, "company"] },
    },
    {
      name: "quantity",
      label: "Quantity",
      type: "integer",
      min: 1,
      max: 100,
      required: true,
      default: 1,
    },
    {
      name: "total",
      label: "Total (EUR)",
      type: "number",
      compute: { "*": [{ var: "quantity" }, 12.5] },
    },
    { name: "utm_source", type: "hidden" },
  ],
  steps: [
    { title: "About you", fields: ["customer_type", "name", "email", "company", "vat_id"] },
    { title: "Your order", fields: ["quantity", "total"] },
  ],
  translations: {
    ar: {
      form: { title: "طلب شراء", submit: "اطلب الآن" },
      steps: { "About you": "بياناتك", "Your order": "طلبك" },
      fields: {
        customer_type: { label: "تطلب بصفتك", options: { person: "فرد", company: "شركة" } },
        name: { label: "اسمك" },
        email: { label: "البريد الإلكتروني" },
        company: { label: "اسم الشركة" },
        vat_id: { label: "الرقم الضريبي" },
        quantity: { label: "الكمية" },
        total: { label: "المجموع (يورو)" },
      },
    },
    de: {
      form: { title: "Bestellung" },
      fields: { name: { label: "Ihr Name" } },
      steps: { "About you": "Über Sie" },
    },
  },
};

async function latest(env: TestEnv, form: Form): Promise<Submission> {
  const all: Submission[] = [];
  for await (const e of env.deps.kv.list<Submission>({ prefix: keys.submissions(form.id) })) {
    all.push(e.value);
  }
  assert.ok(all.length, "a submission was stored");
  return all[all.length - 1];
}

/** How far the page is wider than its viewport (0: no horizontal scrolling). */
function overflow(page: Page): Promise<number> {
  return page.evaluate(() =>
    document.documentElement.scrollWidth - document.documentElement.clientWidth
  );
}

Deno.test({
  name: "hosted logic browser - conditions, steps, computed total, prefill, languages",
  ignore: !(await chromiumPresent()),
  async fn(t) {
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = await testEnv({ BASE_URL: base, TRUST_PROXY: "0" });
    const ws = await makeWorkspace(env.deps, "starter");
    const server = Deno.serve(
      { hostname: "127.0.0.1", port, onListen: () => {} },
      (req, info) => env.app.fetch(req, { remoteAddr: info.remoteAddr }),
    );
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const opened: { ctx: BrowserContext; close: () => Promise<void>; js: boolean }[] = [];
    const problems: string[] = [];
    const open = async (js: boolean) => {
      let b = opened.find((o) => o.js === js);
      if (!b) {
        const launched = await launchChromium({ javaScriptEnabled: js, viewport: DESKTOP });
        opened.push(b = { ctx: launched.context, close: launched.close, js });
      }
      const page = await b.ctx.newPage();
      page.setDefaultTimeout(15_000);
      page.on("pageerror", (e) => problems.push(String(e)));
      page.on("console", (m) => {
        // Validation answers 422 on purpose; Chromium logs each one.
        const expected = /status of 422\b/.test(m.text());
        if (m.type() === "error" && !expected && !m.location().url.endsWith("/favicon.ico")) {
          problems.push(`${m.text()} ${m.location().url}`);
        }
      });
      return page;
    };
    const hydrated = (page: Page) =>
      page.locator('[data-island="HostedForm"][data-hydrated]').waitFor();
    const shot = (page: Page, name: string) =>
      page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });

    try {
      await t.step(
        "JavaScript on: prefill, a condition, steps, Back/Next, live total",
        async () => {
          const form = await makeForm(env.deps, ws, ORDER);
          const page = await open(true);
          await page.goto(`${base}/f/${form.id}?utm_source=newsletter&email=ada@example.com`);
          await hydrated(page);
          // Prefilled from the address; the default chose "person".
          assert.equal(await page.getByLabel("Email").inputValue(), "ada@example.com");
          assert.equal(await page.locator('input[name="utm_source"]').inputValue(), "newsletter");
          assert.ok(await page.getByLabel("person", { exact: true }).isChecked());
          // Step 1 of 2, with its bar; the company fields are hidden for a person.
          await page.getByText("Step 1 of 2").waitFor();
          assert.equal(await page.locator(".step-progress progress").getAttribute("value"), "1");
          assert.equal(await page.getByLabel("Company name").isVisible(), false);
          assert.equal(
            await page.getByLabel("Quantity").isVisible(),
            false,
            "step 2 not shown yet",
          );
          assert.equal(await page.getByRole("button", { name: "Send" }).count(), 0);
          // Choosing company shows the company fields at once.
          await page.getByLabel("company", { exact: true }).check();
          await page.getByLabel("Company name").waitFor();
          assert.ok(await page.getByLabel("VAT id").isVisible());
          await page.getByLabel("Your name").fill("Ada Lovelace");
          // Next checks the step through validate: the company name is now required.
          await page.getByRole("button", { name: "Next" }).click();
          await page.locator(".field-error", { hasText: /Company name/ }).waitFor();
          await page.getByText("Step 1 of 2").waitFor();
          await shot(page, "step1-error");
          await page.getByLabel("Company name").fill("Analytical Engines Ltd");
          await page.getByRole("button", { name: "Next" }).click();
          await page.getByText("Step 2 of 2").waitFor();
          assert.equal(await page.locator(".step-progress progress").getAttribute("value"), "2");
          assert.equal(await page.getByLabel("Company name").isVisible(), false);
          // The total follows the quantity live (default 1).
          const total = page.locator("output");
          assert.equal((await total.textContent())?.trim(), "12.5");
          await page.getByLabel("Quantity").fill("3");
          await page.waitForFunction(() =>
            document.querySelector("output")?.textContent === "37.5"
          );
          await shot(page, "step2-total");
          // Back keeps every answer.
          await page.getByRole("button", { name: "Back" }).click();
          await page.getByText("Step 1 of 2").waitFor();
          assert.equal(
            await page.getByLabel("Company name").inputValue(),
            "Analytical Engines Ltd",
          );
          await page.getByRole("button", { name: "Next" }).click();
          await page.getByText("Step 2 of 2").waitFor();
          assert.equal(await page.getByLabel("Quantity").inputValue(), "3");
          await page.getByRole("button", { name: "Send" }).click();
          await page.waitForURL(/\/thanks\?submission_id=sub_/);
          const sub = await latest(env, form);
          assert.deepEqual(sub.fields, {
            customer_type: "company",
            name: "Ada Lovelace",
            email: "ada@example.com",
            company: "Analytical Engines Ltd",
            quantity: 3,
            total: 37.5,
            utm_source: "newsletter",
          });
          // The page reported each step reached (one session).
          const a = await formAnalytics(env.deps, form, ws, "live");
          assert.deepEqual(a.steps, [{ step: 1, reached: 1 }, { step: 2, reached: 1 }]);
        },
      );

      await t.step("JavaScript off: the steps are sections of one page and it posts", async () => {
        const form = await makeForm(env.deps, ws, ORDER);
        const page = await open(false);
        await page.goto(`${base}/f/${form.id}?utm_source=ad`);
        await page.getByRole("heading", { name: "About you" }).waitFor();
        await page.getByRole("heading", { name: "Your order" }).waitFor();
        // Every field is there; the conditional one is not required by the browser.
        assert.ok(await page.getByLabel("Company name").isVisible());
        assert.equal(await page.getByLabel("Company name").getAttribute("required"), null);
        assert.ok(await page.getByLabel("Quantity").isVisible());
        await shot(page, "nojs");
        await page.getByLabel("Your name").fill("Grace Hopper");
        await page.getByLabel("Email").fill("grace@example.com");
        // A person's company name is dropped by the server, not stored.
        await page.getByLabel("Company name").fill("Typed anyway");
        await page.getByLabel("Quantity").fill("2");
        await page.getByRole("button", { name: "Send" }).click();
        await page.waitForURL(/\/thanks\?submission_id=sub_/);
        const sub = await latest(env, form);
        assert.deepEqual(sub.fields, {
          customer_type: "person",
          name: "Grace Hopper",
          email: "grace@example.com",
          quantity: 2,
          total: 25,
          utm_source: "ad",
        });
      });

      await t.step("?lang=ar: Arabic, right to left, axe-clean, no overflow", async () => {
        const form = await makeForm(env.deps, ws, ORDER);
        const page = await open(true);
        for (const size of [DESKTOP, PHONE]) {
          await page.setViewportSize(size);
          await page.goto(`${base}/f/${form.id}?lang=ar`);
          await hydrated(page);
          assert.equal(await page.locator("html").getAttribute("lang"), "ar");
          assert.equal(await page.locator("html").getAttribute("dir"), "rtl");
          await page.getByRole("heading", { name: "طلب شراء" }).waitFor();
          await page.getByRole("heading", { name: "بياناتك" }).waitFor();
          await page.getByLabel("شركة", { exact: true }).check();
          await page.getByLabel("اسم الشركة").waitFor();
          assert.equal(await overflow(page), 0, `no horizontal scrolling at ${size.width}px`);
          await assertNoAxeViolations(page, `ar at ${size.width}px`);
          await shot(page, `ar-${size.width}`);
          // A refused step says so in Arabic (the page's words and the message).
          await page.getByRole("button", { name: "التالي" }).click();
          const error = page.locator(".has-error", { has: page.getByLabel("اسم الشركة") })
            .locator(".field-error");
          await error.waitFor();
          assert.match(await error.innerText(), ARABIC, "the message is in Arabic");
          assert.equal(await overflow(page), 0);
          await assertNoAxeViolations(page, `ar with errors at ${size.width}px`);
        }
      });

      await t.step("Accept-Language picks a language the form has", async () => {
        const form = await makeForm(env.deps, ws, ORDER);
        const res = await fetch(`${base}/f/${form.id}`, {
          headers: { "accept-language": "fr-CH, de;q=0.8, en;q=0.5" },
        });
        const html = await res.text();
        assert.match(html, /<html lang="de"/);
        assert.match(html, /<h1>Bestellung<\/h1>/);
        assert.match(html, /Ihr Name/);
        // Step titles too; one left untranslated shows the original.
        assert.match(html, />Über Sie</);
        assert.match(html, />Your order</);
        assert.doesNotMatch(html, />About you</);
      });

      assert.deepEqual(problems, []);
    } finally {
      for (const b of opened) await b.close();
      await server.shutdown();
      env.close();
      await Deno.remove(env.deps.config.localStorageDir, { recursive: true }).catch(() => {});
    }
  },
});
