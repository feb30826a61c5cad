/**
 * The client's promise in real Chromium against a real `main.ts` (temp KV file): a page on
 * another origin loads `/sdk/formwell.js`, and whatever happens to the network or the server,
 * exactly one submission is stored: offline then online; the server killed (SIGKILL) after
 * it stored the submission but before its answer reached the page, then restarted; the tab
 * closed while the submission waited, then the site opened again.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { CONTACT_FORM } from "@/tests/helpers.ts";
import { startPages, startService } from "@/tests/sdk/browser_support.ts";
import { chromiumPresent, launchChromium } from "./chromium.ts";

/** A site page: the module from the service, a client with the default base URL, events. */
function sitePage(service: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Site</title></head>
<body><main><h1>Site</h1></main><script type="module">
import { Formwell } from "${service}/sdk/formwell.js";
window.events = [];
window.fw = new Formwell({ retry: { attempts: 2, baseMs: 200, capMs: 1000 } });
fw.on((e) => events.push({ type: e.type, id: e.id, restored: e.restored, result: e.result }));
window.ready = true;
</script></body></html>`;
}

interface PageEvent {
  type: string;
  id: string;
  restored: boolean;
  result?: { submission_id: string; submission_number: number };
}

async function open(page: Page, url: string): Promise<void> {
  page.setDefaultTimeout(30_000);
  await page.goto(url);
  await page.waitForFunction(() => (globalThis as unknown as { ready?: boolean }).ready === true);
}

/** Starts a submit in the page without waiting for it; its outcome lands in `window.outcome`. */
function submitInPage(page: Page, formId: string, i: number): Promise<void> {
  return page.evaluate(([id, n]) => {
    const w = globalThis as unknown as Record<string, unknown> & {
      fw: { submit: (id: string, d: unknown) => Promise<unknown> };
    };
    w.outcome = null;
    w.fw.submit(id as string, {
      name: `Person ${n}`,
      email: `p${n}@example.com`,
    }).then(
      (r) => w.outcome = { ok: r },
      (e) => w.outcome = { error: e.code },
    );
  }, [formId, i] as const);
}

function events(page: Page): Promise<PageEvent[]> {
  return page.evaluate(() => (globalThis as unknown as { events: PageEvent[] }).events);
}

async function waitEvent(page: Page, type: string): Promise<void> {
  await page.waitForFunction(
    (t) => (globalThis as unknown as { events: PageEvent[] }).events.some((e) => e.type === t),
    type,
  );
}

Deno.test({
  name: "sdk outbox browser - never loses, never duplicates",
  ignore: !(await chromiumPresent()),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const service = await startService(CONTACT_FORM);
    const site = startPages({ "/": sitePage(service.url) });
    const browser = await launchChromium();
    const formId = service.form.id;
    try {
      await t.step("offline, then online: queued, then sent once", async () => {
        const page = await browser.context.newPage();
        await open(page, site.url);
        await browser.context.setOffline(true);
        await submitInPage(page, formId, 1);
        await waitEvent(page, "queued");
        const kept = await page.evaluate(() =>
          (globalThis as unknown as {
            fw: { queued: () => Promise<unknown[]> };
          }).fw.queued()
        );
        assert.equal(kept.length, 1, "kept in IndexedDB");
        assert.equal(await service.count(), 0);
        await browser.context.setOffline(false);
        await waitEvent(page, "sent");
        const outcome = await page.evaluate(() =>
          (globalThis as unknown as { outcome: unknown }).outcome
        );
        assert.deepEqual(
          await events(page).then((es) => es.map((e) => e.type)),
          [
            "queued",
            "sent",
          ],
        );
        assert.equal(await service.count(), 1);
        const stored = await service.submissions();
        assert.deepEqual(outcome, {
          ok: {
            submission_id: stored[0].id,
            submission_number: stored[0].submission_number,
          },
        });
        await page.close();
      });

      await t.step(
        "server killed after storing, before answering; restarted: one submission",
        async () => {
          const page = await browser.context.newPage();
          await open(page, site.url);
          let killed = false;
          service.proxy.dropNext201(async () => {
            await service.server.stop("SIGKILL");
            killed = true;
          });
          await submitInPage(page, formId, 2);
          await waitEvent(page, "queued");
          assert.ok(killed, "the server was killed with its 201 on the wire");
          await service.restart();
          assert.equal(
            await service.count(),
            2,
            "the first process had stored it",
          );
          await waitEvent(page, "sent");
          const outcome = await page.evaluate(() =>
            (globalThis as unknown as {
              outcome: { ok: { submission_number: number } };
            }).outcome
          );
          assert.equal(
            outcome.ok.submission_number,
            2,
            "the stored one, answered again",
          );
          assert.equal(await service.count(), 2, "and not stored twice");
          await page.close();
        },
      );

      await t.step(
        "tab closed while queued: the next visit sends it",
        async () => {
          const first = await browser.context.newPage();
          await open(first, site.url);
          await browser.context.setOffline(true);
          await submitInPage(first, formId, 3);
          await waitEvent(first, "queued");
          const [{ id }] = await events(first);
          await first.close();
          await browser.context.setOffline(false);
          assert.equal(await service.count(), 2);
          const next = await browser.context.newPage();
          await open(next, site.url);
          await waitEvent(next, "sent");
          const sent = (await events(next)).find((e) => e.type === "sent")!;
          assert.equal(sent.id, id, "the same Idempotency-Key");
          assert.equal(sent.restored, true);
          assert.equal(await service.count(), 3);
          assert.deepEqual(
            await next.evaluate(() =>
              (globalThis as unknown as {
                fw: { queued: () => Promise<unknown[]> };
              }).fw.queued()
            ),
            [],
          );
          await next.close();
        },
      );
    } finally {
      await browser.close();
      await site.close();
      await service.stop();
    }
  },
});
