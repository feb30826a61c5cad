/**
 * Every admin page with a table, filled with data, in headless Chromium at 1280 px and at
 * phone width (390 px): the page never scrolls sideways, no table scrolls inside its box,
 * every column of every row is shown within the window (none hidden, none cut off), the
 * forms list shows Status and Updated, and axe-core finds nothing.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { dispatch } from "@/lib/jobs/mod.ts";
import { testEnv } from "@/tests/helpers.ts";
import { PASSWORD } from "@/tests/admin_support.ts";
import { freePort } from "@/tests/processes.ts";
import { assertNoAxeViolations } from "./axe.ts";
import { serveApp, signIn } from "./admin_session.ts";
import { chromiumPresent, launchBrowser } from "./chromium.ts";
import { seedWorkspace } from "./admin_seed.ts";

/** What one table cell looks like in the window. */
interface Cell {
  column: string;
  text: string;
  shown: boolean;
  left: number;
  right: number;
}

/** Each table of the page: its rows, each a list of cells named by their column's header. */
function tablesOf(page: Page) {
  return page.evaluate(() => {
    return [...document.querySelectorAll("main table")].map((table) => {
      const heads = [...table.querySelectorAll("thead th")].map((th) =>
        (th.textContent ?? "").trim()
      );
      const box = table.parentElement!;
      const rows = [...table.querySelectorAll("tbody tr")].map((tr) =>
        [...tr.children].map((td, i) => {
          const r = td.getBoundingClientRect();
          const style = getComputedStyle(td);
          return {
            column: heads[i] ?? `#${i}`,
            text: (td as HTMLElement).innerText.trim(),
            shown: style.display !== "none" && style.visibility !== "hidden" && r.width > 0 &&
              r.height > 0,
            left: r.left,
            right: r.right,
          };
        })
      );
      return {
        heads,
        rows,
        scrolls: box.scrollWidth > box.clientWidth + 1 || table.scrollWidth > box.clientWidth + 1,
      };
    });
  }) as Promise<{ heads: string[]; rows: Cell[][]; scrolls: boolean }[]>;
}

Deno.test({
  name: "admin tables - at 1280 and 390 px: every column shown, no sideways scroll, axe clean",
  ignore: !(await chromiumPresent()),
  async fn(t) {
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = await testEnv({
      BASE_URL: base,
      TRUST_PROXY: "0",
      WEBHOOK_ALLOW_PRIVATE: "1",
      RATE_LIMITS: JSON.stringify({ submit: 10_000, upload_url: 10_000, login: 1000 }),
    });
    env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
    const rx = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response("ok"),
    );
    const server = serveApp(env, port);
    const browser = await launchBrowser();
    try {
      const { hookId } = await seedWorkspace(env, base, rx.addr.port);
      const pages = [
        "/admin/forms",
        "/admin/keys",
        "/admin/webhooks",
        `/admin/webhooks/${hookId}`,
        "/admin/members",
        "/admin/audit",
        "/admin/workspaces",
      ];
      const first = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await signIn(await first.newPage(), base, "owner@example.com", PASSWORD);
      const { cookies } = await first.storageState();
      await first.close();

      for (const width of [1280, 390]) {
        await t.step(`${width} px`, async () => {
          const context = await browser.newContext({ viewport: { width, height: 844 } });
          await context.addCookies(cookies);
          const page = await context.newPage();
          page.setDefaultTimeout(10_000);
          const problems: string[] = [];
          try {
            for (const path of pages) {
              const label = `${path} at ${width} px`;
              try {
                const res = await page.goto(`${base}${path}`);
                assert.equal(res?.status(), 200, label);
                const inner = await page.evaluate(() => ({
                  scroll: document.documentElement.scrollWidth,
                  width: globalThis.innerWidth,
                }));
                if (inner.scroll > inner.width) {
                  problems.push(`${label}: the page is ${inner.scroll} px wide`);
                }
                const tables = await tablesOf(page);
                if (tables.length === 0) problems.push(`${label}: no table`);
                for (const [i, table] of tables.entries()) {
                  if (table.scrolls) problems.push(`${label}: table ${i} scrolls sideways`);
                  for (const cell of table.rows.flat()) {
                    if (!cell.shown) problems.push(`${label}: column "${cell.column}" is hidden`);
                    else if (cell.left < -1 || cell.right > inner.width + 1) {
                      problems.push(`${label}: column "${cell.column}" lies outside the window`);
                    }
                  }
                }
                if (path === "/admin/forms") {
                  const [forms] = tables;
                  const row = forms.rows[0] ?? [];
                  const cell = (name: string) => row.find((c) => c.column === name);
                  assert.match(cell("Status")?.text ?? "", /accepting|closed/, label);
                  assert.match(cell("Updated")?.text ?? "", /UTC/, label);
                  assert.ok(cell("Status")?.shown && cell("Updated")?.shown, label);
                }
                await assertNoAxeViolations(page, label);
              } catch (err) {
                problems.push(err instanceof Error ? err.message : String(err));
              }
            }
          } finally {
            await context.close();
          }
          assert.deepEqual([...new Set(problems)], [], problems.join("\n"));
        });
      }
    } finally {
      await browser.close();
      await server.shutdown();
      await rx.shutdown();
      env.close();
    }
  },
});
