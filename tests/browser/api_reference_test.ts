/**
 * The API reference (/docs/api) in real Chromium against the real app: it renders the
 * submit operation from the service's own OpenAPI document, every request stays on the
 * service's origin, the strict CSP refuses nothing the page needs, and axe finds nothing.
 */
import assert from "node:assert/strict";
import { testEnv } from "@/tests/helpers.ts";
import { freePort } from "@/tests/processes.ts";
import { assertNoAxeViolations } from "./axe.ts";
import { chromiumPresent, launchChromium } from "./chromium.ts";

Deno.test({
  name: "api reference - renders the submit operation from our origin only, axe clean",
  ignore: !(await chromiumPresent()),
  async fn() {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = await testEnv({ BASE_URL: base });
    const server = Deno.serve(
      { hostname: "127.0.0.1", port, onListen: () => {} },
      (req, info) => env.app.fetch(req, { remoteAddr: info.remoteAddr }),
    );
    const browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await browser.context.newPage();
      page.setDefaultTimeout(20_000);
      const urls: string[] = [];
      const refused: string[] = [];
      page.on("request", (r) => urls.push(r.url()));
      page.on("console", (m) => {
        if (/Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text());
      });
      const res = await page.goto(`${base}/docs/api`);
      assert.equal(res?.status(), 200);
      assert.match(res?.headers()["content-security-policy"] ?? "", /script-src 'self'/);
      // The operation's summary, rendered from /api/v1/openapi.json.
      const submit = page.locator(".opblock", { hasText: "/api/v1/submit/p/{id}" });
      await submit.first().waitFor();
      assert.match(await submit.first().innerText(), /Submit a form/);
      await submit.first().locator(".opblock-summary").click();
      await page.getByText("Idempotency-Key", { exact: false }).first().waitFor();
      // Its curl example, with the placeholders.
      const example = submit.first().locator("pre", { hasText: "curl -X POST" });
      assert.match(await example.first().innerText(), /\$FORMWELL_URL\/api\/v1\/submit\/p\/<id>/);
      assert.ok(urls.some((u) => u === `${base}/api/v1/openapi.json`), urls.join("\n"));
      const foreign = urls.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith("data:"));
      assert.deepEqual(foreign, [], "requests that left the origin");
      assert.deepEqual(refused, [], "CSP refusals");
      await assertNoAxeViolations(page, "/docs/api");
    } finally {
      await browser.close();
      await server.shutdown();
      env.close();
    }
  },
});
