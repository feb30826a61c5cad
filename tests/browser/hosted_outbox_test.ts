/**
 * The hosted page offline, in real Chromium against a real `main.ts`: a submit made while
 * the browser is offline is kept in the client library's outbox (the page stays, saying
 * so, instead of a plain post ending on the browser's "No internet" page), and once the
 * browser is back online it is stored exactly once and the page goes on to the thank-you.
 */
import assert from "node:assert/strict";
import { CONTACT_FORM } from "@/tests/helpers.ts";
import { startService } from "@/tests/sdk/browser_support.ts";
import { chromiumPresent, launchChromium } from "./chromium.ts";

Deno.test({
  name: "hosted outbox browser - offline submit is kept, then stored once when back online",
  ignore: !(await chromiumPresent()),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const service = await startService(CONTACT_FORM);
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      page.setDefaultTimeout(20_000);
      const address = `${service.url}/f/${service.form.id}`;
      const visited: string[] = [];
      page.on("framenavigated", (f) => {
        if (f === page.mainFrame()) visited.push(f.url());
      });
      const posts: string[] = [];
      page.on("request", (r) => {
        if (r.method() === "POST" && r.url().includes("/submit/p/")) posts.push(r.url());
      });
      await page.goto(address);
      await page.waitForFunction(() =>
        document.querySelector<HTMLFormElement>("form.hosted-form")?.noValidate === true
      );
      await page.locator("[name=name]").fill("Ada");
      await page.locator("[name=email]").fill("ada@example.com");

      await browser.context.setOffline(true);
      await page.getByRole("button", { name: "Send" }).click();
      await page.getByText("Your response is saved on this device").waitFor();
      assert.deepEqual(visited, [address], "no navigation while offline");
      assert.equal(page.url(), address);
      assert.equal(await service.count(), 0);

      await browser.context.setOffline(false);
      await page.waitForURL(/submission_id=sub_/);
      const stored = await service.submissions();
      assert.equal(stored.length, 1, "stored exactly once");
      assert.equal((stored[0].fields as Record<string, unknown>).email, "ada@example.com");
      assert.equal(posts.length, 1, "one submit, never a second one");
      await page.close();
    } finally {
      await browser.close();
      await service.stop();
    }
  },
});
