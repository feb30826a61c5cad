/**
 * The client library tells a page the truth, in real Chromium against a real `main.ts`:
 * a page on an origin outside the form's allowed origins gets `FormwellError`
 * `origin_not_allowed` (the refusal is readable: it carries CORS), a console line saying
 * why, no "offline" queueing and no second attempt.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { CONTACT_FORM } from "@/tests/helpers.ts";
import { startPages, startService } from "@/tests/sdk/browser_support.ts";
import { chromiumPresent, launchChromium } from "./chromium.ts";

function sitePage(service: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Site</title></head>
<body><main><h1>Site</h1></main><script type="module">
import { Formwell } from "${service}/sdk/formwell.js";
window.events = [];
window.fw = new Formwell({ retry: { attempts: 3, baseMs: 50, capMs: 200 } });
fw.on((e) => events.push(e.type));
window.ready = true;
</script></body></html>`;
}

type Outcome = { ok?: unknown; name?: string; code?: string; status?: number; queued: boolean };

function submitInPage(page: Page, formId: string): Promise<Outcome> {
  return page.evaluate(async (id) => {
    const w = globalThis as unknown as {
      fw: {
        submit: (id: string, d: unknown, o: unknown) => Promise<unknown>;
      };
    };
    let queued = false;
    try {
      const ok = await w.fw.submit(id, { name: "Ada", email: "ada@example.com" }, {
        onQueued: () => queued = true,
      });
      return { ok, queued };
    } catch (e) {
      const err = e as { name: string; code: string; status: number };
      return { name: err.name, code: err.code, status: err.status, queued };
    }
  }, formId);
}

Deno.test({
  name: "sdk refusals browser - a disallowed origin is told so, never 'offline'",
  ignore: !(await chromiumPresent()),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const service = await startService({
      ...CONTACT_FORM,
      allowed_origins: ["https://www.example.com"],
    });
    const site = startPages({ "/": sitePage(service.url) });
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      page.setDefaultTimeout(30_000);
      const logs: string[] = [];
      page.on("console", (m) => logs.push(`${m.type()}: ${m.text()}`));
      const posts: string[] = [];
      page.on("request", (r) => {
        if (r.method() === "POST" && r.url().includes("/submit/p/")) posts.push(r.url());
      });
      await page.goto(site.url);
      await page.waitForFunction(() => (globalThis as { ready?: boolean }).ready === true);
      const outcome = await submitInPage(page, service.form.id);
      assert.deepEqual(outcome, {
        name: "FormwellError",
        code: "origin_not_allowed",
        status: 403,
        queued: false,
      });
      const events = await page.evaluate(() =>
        (globalThis as unknown as { events: string[] }).events
      );
      assert.deepEqual(events, ["failed"], "never queued as offline");
      assert.equal(posts.length, 1, "no retry of a refusal");
      const why = logs.find((l) => l.includes("allowed origins")) ?? "";
      assert.ok(why.startsWith("error: "), logs.join("\n"));
      assert.ok(why.includes(new URL(site.url).origin), why);
      assert.equal(await service.count(), 0);
      await page.close();
    } finally {
      await browser.close();
      await site.close();
      await service.stop();
    }
  },
});
