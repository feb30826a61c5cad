/**
 * `fw.enhance(form)` in real Chromium against a real `main.ts`: a plain HTML form on
 * another origin that posts without JavaScript too. With the client: errors beside the
 * fields (`aria-invalid`, `aria-describedby`) and in a summary that takes focus, the button
 * disabled while sending, values typed by the schema, a file through the signed upload, the
 * success message. Without JavaScript: the same form still posts and is stored. axe-core
 * finds no violation, errors shown or not.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import type { FormDefinition } from "@/lib/schemas.ts";
import { startPages, startService } from "@/tests/sdk/browser_support.ts";
import { SAMPLES } from "@/tests/upload_fixtures.ts";
import { assertNoAxeViolations } from "./axe.ts";
import { chromiumPresent, launchChromium } from "./chromium.ts";

const APPLY: FormDefinition = {
  name: "Apply",
  fields: [
    { name: "name", label: "Your name", type: "text", required: true },
    { name: "email", label: "Email", type: "email", required: true },
    { name: "age", label: "Age", type: "integer", min: 18 },
    {
      name: "cv",
      label: "CV",
      type: "file",
      allowedTypes: ["application/pdf"],
    },
    { name: "consent", label: "I agree", type: "boolean", required: true },
  ],
  honeypot: "_gotcha",
};

function formPage(service: string, formId: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Apply</title></head>
<body><main><h1>Apply</h1>
<form id="apply" action="${service}/api/v1/submit/p/${formId}" method="post"
  enctype="multipart/form-data" data-success="Thanks, your application is in.">
  <p><label for="name">Your name</label> <input id="name" name="name"></p>
  <p><label for="email">Email</label> <input id="email" name="email"></p>
  <p><label for="age">Age</label> <input id="age" name="age" type="number"></p>
  <p><label for="cv">CV</label> <input id="cv" name="cv" type="file" accept="application/pdf"></p>
  <p><input id="consent" name="consent" type="checkbox"> <label for="consent">I agree</label></p>
  <p hidden><label for="gotcha">Leave empty</label> <input id="gotcha" name="_gotcha"></p>
  <button type="submit">Apply</button>
</form></main>
<script type="module">
import { Formwell } from "${service}/sdk/formwell.js";
window.log = [];
const button = document.querySelector("button");
new MutationObserver(() => log.push(button.disabled))
  .observe(button, { attributes: true, attributeFilter: ["disabled"] });
new Formwell().enhance(document.getElementById("apply"), {
  onSuccess: (r) => window.result = r,
  onError: (e) => window.errorCode = e.code,
});
window.ready = true;
</script></body></html>`;
}

/** The error text each field's `aria-describedby` points to, by field id. */
function describedErrors(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const out: Record<string, string> = {};
    for (const el of document.querySelectorAll("[aria-invalid=true]")) {
      const ids = (el.getAttribute("aria-describedby") ?? "").split(" ");
      out[el.id] = ids.map((id) => document.getElementById(id)?.textContent ?? "").join("|");
    }
    return out;
  });
}

async function fill(page: Page, pdf: string, age: string) {
  await page.getByLabel("Your name").fill("Ada Lovelace");
  await page.getByLabel("Email").fill("ada@example.com");
  await page.getByLabel("Age").fill(age);
  await page.getByLabel("CV").setInputFiles(pdf);
  await page.getByLabel("I agree").check();
}

Deno.test({
  name: "sdk enhance browser - errors, files, success, no-JS fallback, axe",
  ignore: !(await chromiumPresent()),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const service = await startService(APPLY);
    const site = startPages({ "/": formPage(service.url, service.form.id) });
    const js = await launchChromium();
    const noJs = await launchChromium({ javaScriptEnabled: false });
    const pdf = await Deno.makeTempFile({ suffix: ".pdf" });
    await Deno.writeFile(pdf, SAMPLES.pdf);
    const page = await js.context.newPage();
    page.setDefaultTimeout(20_000);
    try {
      await page.goto(site.url);
      await page.waitForFunction(() => (globalThis as unknown as { ready?: boolean }).ready);
      await assertNoAxeViolations(page, "enhanced form");

      await t.step(
        "errors beside their fields and in a focused summary",
        async () => {
          await page.getByRole("button", { name: "Apply" }).click();
          await page.locator(".fw-error-summary").waitFor();
          assert.deepEqual(
            await page.locator(".fw-error-summary li").allInnerTexts(),
            [
              "Your name is required.",
              "Email is required.",
              "Please tick “I agree”.",
            ],
          );
          assert.equal(
            await page.evaluate(() => document.activeElement?.className),
            "fw-error-summary",
            "focus moves to the summary",
          );
          assert.deepEqual(await describedErrors(page), {
            name: "Your name is required.",
            email: "Email is required.",
            consent: "Please tick “I agree”.",
          });
          const href = await page.locator(".fw-error-summary a").first()
            .getAttribute("href");
          assert.equal(href, "#name");
          await assertNoAxeViolations(page, "enhanced form with errors");
        },
      );

      await t.step(
        "values typed by the schema; errors replaced on the next send",
        async () => {
          await fill(page, pdf, "16");
          await page.getByRole("button", { name: "Apply" }).click();
          await page.waitForFunction(() =>
            document.querySelector(".fw-error-summary li")?.textContent ===
              "Age must be at least 18."
          );
          assert.deepEqual(await describedErrors(page), {
            age: "Age must be at least 18.",
          });
          assert.equal(await service.count(), 0);
        },
      );

      await t.step(
        "success: the file uploaded, the button disabled while sending",
        async () => {
          await page.evaluate(() => (globalThis as unknown as { log: boolean[] }).log.length = 0);
          await page.getByLabel("Age").fill("30");
          await page.getByRole("button", { name: "Apply" }).click();
          await page.getByText("Thanks, your application is in.").waitFor();
          const log = await page.evaluate(() => (globalThis as unknown as { log: boolean[] }).log);
          assert.deepEqual(log, [true, false]);
          assert.equal(
            await page.locator(".fw-error-summary").count(),
            0,
            "errors cleared",
          );
          assert.equal(
            await page.getByLabel("Your name").inputValue(),
            "",
            "the form is reset",
          );
          const [stored] = await service.submissions();
          const fields = stored.fields as Record<string, unknown>;
          assert.equal(fields.age, 30);
          assert.equal(fields.consent, true);
          assert.equal(
            (fields.cv as { originalFilename: string }).originalFilename,
            pdf.split("/").pop(),
          );
          assert.equal((stored.files as unknown[]).length, 1);
          await assertNoAxeViolations(page, "enhanced form after success");
        },
      );

      await t.step(
        "without JavaScript the same form still posts, file included",
        async () => {
          const plain = await noJs.context.newPage();
          plain.setDefaultTimeout(20_000);
          await plain.goto(site.url);
          await fill(plain, pdf, "41");
          await Promise.all([
            plain.waitForURL(/submission_id=sub_/),
            plain.getByRole("button", { name: "Apply" }).click(),
          ]);
          assert.equal(await service.count(), 2);
          const [latest] = await service.submissions();
          assert.equal((latest.fields as Record<string, unknown>).age, 41);
          assert.equal((latest.files as unknown[]).length, 1);
          await plain.close();
        },
      );
    } finally {
      await js.close();
      await noJs.close();
      await site.close();
      await service.stop();
      await Deno.remove(pdf).catch(() => {});
    }
  },
});
