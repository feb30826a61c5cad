/**
 * Every admin page, filled with data, in headless Chromium at 1280 px and 390 px, light and
 * dark: the page never scrolls sideways, what must stay readable is not clipped (mail
 * bodies, submission values, builder field cards, chart labels), and axe-core finds
 * nothing. One browser; one context (viewport and colour scheme) and page per combination.
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
import { SEED_FORM, seedWorkspace, VIEWER } from "./admin_seed.ts";

/** One page of the table: its path, and selectors of elements that must not be clipped. */
interface PageCase {
  name: string;
  path: string;
  /** Elements whose content must fit them at every width (no hidden or scrolled overflow). */
  fits?: string[];
  /** Something to wait for before measuring (an island hydrated). */
  ready?: string;
  /** Controls (a selector) of which no two may touch or overlap. */
  apart?: string;
  /** The status the page answers (200 unless said). */
  status?: number;
  /** Opened before signing in (sign-in, password reset). */
  public?: boolean;
}

Deno.test({
  name: "admin layout - every page at 1280 and 390 px, light and dark: no overflow, axe clean",
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
      const { form, sids, kid, hookId } = await seedWorkspace(env, base, rx.addr.port);
      const forms = `/admin/forms/${form.id}`;
      const sub = `${forms}/submissions/${sids[0]}`;
      const pages: PageCase[] = [
        { name: "sign-in", path: "/admin/login", public: true },
        { name: "forgot password", path: "/admin/reset", public: true },
        { name: "forms", path: "/admin/forms" },
        { name: "new form", path: "/admin/forms/new", ready: "[data-island][data-hydrated]" },
        {
          name: "form overview",
          path: forms,
          ready: '[data-island="DailyChart"][data-hydrated]',
          fits: [".chart-labels"],
        },
        {
          name: "form edit",
          path: `${forms}/edit`,
          ready: '[data-island="FieldBuilder"][data-hydrated]',
          fits: [".field-card", ".preview"],
        },
        { name: "form delete", path: `${forms}/delete` },
        { name: "submissions", path: `${forms}/submissions`, fits: [".table-wrap"] },
        { name: "submission", path: sub, fits: ["pre.code"] },
        { name: "submission delete", path: `${forms}/submissions/${sids[1]}?confirm=delete` },
        { name: "keys", path: "/admin/keys" },
        { name: "key revoke", path: `/admin/keys/${kid}/revoke` },
        { name: "members", path: "/admin/members" },
        { name: "outbox", path: "/admin/outbox", fits: [".mail-text"] },
        {
          name: "webhooks",
          path: "/admin/webhooks",
          apart: "tbody tr:first-child td:last-child :is(a.button, button)",
        },
        { name: "webhook deliveries", path: `/admin/webhooks/${hookId}` },
        { name: "privacy", path: "/admin/privacy" },
        { name: "audit log", path: "/admin/audit" },
        { name: "workspaces", path: "/admin/workspaces" },
        { name: "account", path: "/admin/account" },
        { name: "not found", path: `${forms}/submissions/sub_nope`, status: 404 },
      ];

      const first = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await signIn(await first.newPage(), base, "owner@example.com", PASSWORD);
      const storageState = await first.storageState();
      await first.close();

      for (const width of [1280, 390]) {
        for (const colorScheme of ["light", "dark"] as const) {
          await t.step(`${width} px, ${colorScheme}`, async () => {
            const context = await browser.newContext({
              viewport: { width, height: width > 500 ? 900 : 844 },
              colorScheme,
            });
            const page = await context.newPage();
            page.setDefaultTimeout(10_000);
            const problems: string[] = [];
            page.on("pageerror", (e) => problems.push(String(e)));
            try {
              // Every page is checked; the failures are reported together.
              // Public pages first, then the session's cookie for the rest.
              let signedIn = false;
              for (const c of [...pages].sort((a, b) => Number(!a.public) - Number(!b.public))) {
                const label = `${c.name} at ${width} px ${colorScheme}`;
                if (!c.public && !signedIn) {
                  await context.addCookies(storageState.cookies);
                  signedIn = true;
                }
                try {
                  const res = await page.goto(`${base}${c.path}`);
                  assert.equal(res?.status(), c.status ?? 200, label);
                  assert.equal(new URL(page.url()).pathname, c.path.split("?")[0], label);
                  if (c.ready) await page.locator(c.ready).first().waitFor();
                  await assertNoOverflow(page, label, c.fits ?? []);
                  if (c.apart) await assertApart(page, label, c.apart);
                  await assertNoAxeViolations(page, label);
                } catch (err) {
                  problems.push(err instanceof Error ? err.message : String(err));
                }
              }
            } finally {
              await context.close();
            }
            assert.deepEqual(problems, [], problems.join("\n"));
          });
        }
      }
      await t.step("a viewer's pages at 390 px: no overflow, axe clean", async () => {
        const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
        const page = await context.newPage();
        const problems: string[] = [];
        try {
          await signIn(page, base, VIEWER, PASSWORD);
          for (
            const path of ["/admin/forms", forms, `${forms}/submissions`, sub, "/admin/members"]
          ) {
            try {
              const res = await page.goto(`${base}${path}`);
              assert.equal(res?.status(), 200, path);
              await assertNoOverflow(page, `viewer ${path}`, []);
              await assertNoAxeViolations(page, `viewer ${path}`);
            } catch (err) {
              problems.push(err instanceof Error ? err.message : String(err));
            }
          }
        } finally {
          await context.close();
        }
        assert.deepEqual(problems, [], problems.join("\n"));
      });

      await t.step("a notice is shown once: it leaves the address", async () => {
        const context = await browser.newContext({ storageState });
        const page = await context.newPage();
        try {
          const list = `${base}${forms}/submissions?status=spam`;
          await page.goto(`${list}&notice=marked_spam`);
          await page.getByText("Marked as spam.").waitFor();
          await page.locator('[data-island="Notice"][data-hydrated]').waitFor();
          assert.equal(page.url(), list);
          await page.reload();
          await page.getByRole("heading", { name: SEED_FORM.name }).waitFor();
          assert.equal(await page.getByText("Marked as spam.").count(), 0);
        } finally {
          await context.close();
        }
      });
    } finally {
      await browser.close();
      await server.shutdown();
      await rx.shutdown();
      env.close();
    }
  },
});

/**
 * The page does not scroll sideways, and each element matching `fits` (at least one must
 * exist) shows all of its content: nothing wider than its box.
 */
async function assertNoOverflow(page: Page, label: string, fits: string[]): Promise<void> {
  const body = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: globalThis.innerWidth,
  }));
  assert.ok(
    body.scroll <= body.inner,
    `${label}: the page is ${body.scroll} px wide in a ${body.inner} px window`,
  );
  for (const selector of fits) {
    const found = await page.locator(selector).evaluateAll((els) =>
      els.map((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }))
    );
    assert.ok(found.length > 0, `${label}: nothing matches ${selector}`);
    for (const [i, f] of found.entries()) {
      assert.ok(
        f.scroll <= f.client + 1,
        `${label}: ${selector} #${i} holds ${f.scroll} px of content in ${f.client} px`,
      );
    }
  }
}

/** No two controls matching `selector` (at least two) touch or overlap: 4 px apart at least. */
async function assertApart(page: Page, label: string, selector: string): Promise<void> {
  const boxes = await page.locator(selector).evaluateAll((els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect();
      return { l: r.left, r: r.right, t: r.top, b: r.bottom, text: el.textContent?.trim() };
    })
  );
  assert.ok(boxes.length >= 2, `${label}: fewer than two of ${selector}`);
  for (const [i, a] of boxes.entries()) {
    for (const b of boxes.slice(i + 1)) {
      const gap = Math.max(b.l - a.r, a.l - b.r, b.t - a.b, a.t - b.b);
      assert.ok(gap >= 4, `${label}: "${a.text}" and "${b.text}" are ${gap} px apart`);
    }
  }
}
