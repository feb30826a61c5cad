/**
 * Every admin page, filled with data, in headless Chromium at 1280 px and 390 px, light and
 * dark: the page never scrolls sideways, what must stay readable is not clipped (mail
 * bodies, submission values, builder field cards, chart labels), and axe-core finds
 * nothing. One browser; one context (viewport and colour scheme) and page per combination.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { createUser } from "@/lib/admin/users.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import { listOutbox } from "@/lib/notify/outbox.ts";
import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import { listDeliveries } from "@/lib/notify/deliver.ts";
import { setSubmissionStatus } from "@/lib/submissions/status.ts";
import { listApiKeys } from "@/lib/keys/api_keys.ts";
import type { FormDefinition } from "@/lib/schemas.ts";
import { makeForm, makeKey, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { PASSWORD } from "@/tests/admin_support.ts";
import { freePort } from "@/tests/processes.ts";
import { waitFor } from "@/tests/lib/notify/_support.ts";
import { assertNoAxeViolations } from "./axe.ts";
import { serveApp, signIn } from "./admin_session.ts";
import { chromiumPresent, launchBrowser } from "./chromium.ts";

/** A form with every kind of value the pages show: long text, a select, a file. */
const FORM: FormDefinition = {
  name: "Conference talk proposals and speaker applications for the autumn meetup",
  fields: [
    { id: "fld_name", name: "name", label: "Full name", type: "text", required: true },
    { id: "fld_email", name: "email", label: "Email", type: "email", required: true },
    {
      id: "fld_topic",
      name: "topic",
      label: "Topic",
      type: "select",
      options: ["Distributed systems and consensus", "Accessibility", "Other"],
    },
    { id: "fld_abstract", name: "abstract", label: "Abstract", type: "textarea" },
    { id: "fld_slides", name: "slides", label: "Slides", type: "file" },
  ],
  notifications: {
    emails: ["owner@example.com"],
    subject: "New proposal for {form} from {field:name}",
    notify_suspicious: true,
    notify_spam: false,
  },
};

const LONG_WORD = "https://example.com/a/very/long/link/" + "segment".repeat(30);

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
      const ws = await makeWorkspace(env.deps, "pro");
      await createUser(env.deps, {
        email: "owner@example.com",
        password: PASSWORD,
        workspaceIds: [ws.id],
        owner: true,
      });
      for (const role of ["admin", "viewer"] as const) {
        await createUser(env.deps, {
          email: `${role}-with-a-rather-long-address@example.com`,
          password: PASSWORD,
          workspaceIds: [ws.id],
          role,
        });
      }
      const form = await makeForm(env.deps, ws, FORM);
      await makeKey(env.deps, ws);
      const kid = (await listApiKeys(env.deps, ws.id))[0].id;
      const hook = await createWebhook(env.deps, ws.id, {
        url: `http://127.0.0.1:${rx.addr.port}/hooks/formwell/${"deep/".repeat(12)}receiver`,
        events: ["submission.created"],
      }, { actor: "test" });
      const post = (path: string, body: unknown) =>
        fetch(`${base}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      for (const type of ["view", "view", "start"]) {
        await (await post(`/api/v1/forms/p/${form.id}/events`, { type })).body?.cancel();
      }
      // A 33-byte file through the real upload path.
      const bytes = new TextEncoder().encode("thirty-three bytes of slide text\n");
      assert.equal(bytes.byteLength, 33);
      const grantRes = await post(`/api/v1/forms/p/${form.id}/upload-url`, {
        fieldId: "fld_slides",
        fileName: "slides.txt",
        contentType: "text/plain",
        sizeBytes: bytes.byteLength,
      });
      assert.equal(grantRes.status, 200, await grantRes.clone().text());
      const grant = await grantRes.json() as {
        path: string;
        uploadUrl: string;
        storageToken: string;
      };
      const put = await fetch(grant.uploadUrl, {
        method: "PUT",
        headers: { "content-type": "text/plain", authorization: `Bearer ${grant.storageToken}` },
        body: bytes,
      });
      assert.ok(put.ok, `upload ${put.status}`);
      await put.body?.cancel();
      const sids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await post(`/api/v1/submit/p/${form.id}`, {
          data: {
            name: `Speaker number ${i} with a long double-barrelled name`,
            email: `speaker.${i}.with.a.long.address@example.com`,
            topic: "Distributed systems and consensus",
            abstract: `${LONG_WORD}\n\nA talk about ${"consensus ".repeat(40)}`,
            ...(i === 0 ? { slides: { path: grant.path } } : {}),
          },
          metadata: { page: LONG_WORD, campaign: "autumn" },
        });
        assert.equal(res.status, 201, await res.clone().text());
        sids.push((await res.json()).submission_id);
      }
      await setSubmissionStatus(env.deps, form.id, sids[2], "spam");
      await waitFor("outbox mail", async () => (await listOutbox(env.deps, ws.id)).length >= 2);
      await waitFor(
        "webhook deliveries",
        async () => (await listDeliveries(env.deps, hook.id)).length >= 1,
      );

      const forms = `/admin/forms/${form.id}`;
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
        { name: "submission", path: `${forms}/submissions/${sids[0]}`, fits: ["pre.code"] },
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
        { name: "webhook deliveries", path: `/admin/webhooks/${hook.id}` },
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
          await page.getByRole("heading", { name: FORM.name }).waitFor();
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
