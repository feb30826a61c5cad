/**
 * The client library checks every field of one submit, files included, before anything is
 * sent, in real Chromium against a real `main.ts`: a bad email and a file of a type the
 * field does not allow are both shown at once, and neither an upload URL nor the submit is
 * requested. Fixed, the same form is sent and stored.
 */
import assert from "node:assert/strict";
import type { FormDefinition } from "@/lib/schemas.ts";
import { startPages, startService } from "@/tests/sdk/browser_support.ts";
import { SAMPLES } from "@/tests/upload_fixtures.ts";
import { chromiumPresent, launchChromium } from "./chromium.ts";

const APPLY: FormDefinition = {
  name: "Apply",
  fields: [
    { name: "email", label: "Email", type: "email", required: true },
    { name: "cv", label: "CV", type: "file", allowedTypes: ["application/pdf"] },
  ],
};

function formPage(service: string, formId: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Apply</title></head>
<body><main><h1>Apply</h1>
<form id="apply" action="${service}/api/v1/submit/p/${formId}" method="post"
  enctype="multipart/form-data" data-success="Thanks, your application is in.">
  <p><label for="email">Email</label> <input id="email" name="email"></p>
  <p><label for="cv">CV</label> <input id="cv" name="cv" type="file"></p>
  <button type="submit">Apply</button>
</form></main>
<script type="module">
import { Formwell } from "${service}/sdk/formwell.js";
new Formwell().enhance(document.getElementById("apply"));
window.ready = true;
</script></body></html>`;
}

Deno.test({
  name:
    "sdk all errors browser - a bad email and a disallowed file are shown at once, nothing sent",
  ignore: !(await chromiumPresent()),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const service = await startService(APPLY);
    const site = startPages({ "/": formPage(service.url, service.form.id) });
    const browser = await launchChromium();
    const dir = await Deno.makeTempDir();
    const png = `${dir}/cv.png`;
    const pdf = `${dir}/cv.pdf`;
    await Deno.writeFile(png, SAMPLES.png);
    await Deno.writeFile(pdf, SAMPLES.pdf);
    try {
      const page = await browser.context.newPage();
      page.setDefaultTimeout(20_000);
      const posts: string[] = [];
      page.on("request", (r) => {
        if (r.method() === "POST") posts.push(new URL(r.url()).pathname);
      });
      await page.goto(site.url);
      await page.waitForFunction(() => (globalThis as { ready?: boolean }).ready === true);

      await page.getByLabel("Email").fill("not-an-email");
      await page.getByLabel("CV").setInputFiles(png);
      await page.getByRole("button", { name: "Apply" }).click();
      await page.locator(".fw-error-summary").waitFor();
      const shown = await page.locator(".fw-error-summary li").allInnerTexts();
      assert.equal(shown.length, 2, shown.join("\n"));
      const invalid = await page.locator("[aria-invalid=true]").evaluateAll((els) =>
        els.map((e) => e.id)
      );
      assert.deepEqual(invalid.sort(), ["cv", "email"]);
      assert.ok(shown.some((s) => /email/i.test(s)), shown.join("\n"));
      assert.ok(shown.some((s) => /CV/.test(s)), shown.join("\n"));
      assert.deepEqual(posts, [], "no upload URL and no submit requested");

      await page.getByLabel("Email").fill("ada@example.com");
      await page.getByLabel("CV").setInputFiles(pdf);
      await page.getByRole("button", { name: "Apply" }).click();
      await page.getByText("Thanks, your application is in.").waitFor();
      assert.equal(await service.count(), 1);
      await page.close();
    } finally {
      await browser.close();
      await site.close();
      await service.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
