/**
 * The hosted form in headless Chromium (playwright-core, Debian's chromium) against the
 * real app on a free port, with JavaScript off (the plain post) and on (the island).
 * Screenshots at phone and desktop widths go to test-artifacts/hosted/.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { BrowserContext, Page } from "playwright-core";
import { formAnalytics } from "@/lib/forms/analytics.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Form, FormDefinition, Submission, Workspace } from "@/lib/schemas.ts";
import { makeForm, makeWorkspace, recount, type TestEnv, testEnv } from "@/tests/helpers.ts";
import { freePort } from "@/tests/processes.ts";
import { SAMPLES } from "@/tests/upload_fixtures.ts";
import { chromiumPresent, launchChromium } from "./chromium.ts";

const ARTIFACTS = new URL("../../test-artifacts/hosted/", import.meta.url).pathname;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

const APPLY: FormDefinition = {
  name: "Apply for the workshop",
  fields: [
    { name: "name", label: "Full name", type: "text", required: true, maxLength: 100 },
    { name: "email", label: "Email", type: "email", required: true },
    { name: "phone", label: "Phone", type: "tel" },
    { name: "age", label: "Age", type: "integer", min: 16, max: 120 },
    { name: "track", label: "Track", type: "select", options: ["Design", "Engineering"] },
    { name: "level", label: "Level", type: "radio", options: ["Beginner", "Expert"] },
    { name: "days", label: "Days", type: "multiselect", options: ["Mon", "Tue", "Wed"] },
    { name: "start", label: "Start date", type: "date" },
    { name: "about", label: "About you", type: "textarea", maxLength: 500, help: "A few lines." },
    { name: "cv", label: "CV", type: "file", allowedTypes: ["application/pdf"], maxSizeMB: 1 },
    { name: "terms", label: "I accept the terms", type: "boolean", required: true },
    { name: "source", type: "hidden" },
  ],
  honeypot: "_gotcha",
};

const ALTCHA_FORM: FormDefinition = {
  name: "Newsletter",
  fields: [{ name: "email", label: "Email", type: "email", required: true }],
  captcha: { provider: "altcha" },
};

async function latest(env: TestEnv, form: Form): Promise<Submission> {
  const all: Submission[] = [];
  for await (const e of env.deps.kv.list<Submission>({ prefix: keys.submissions(form.id) })) {
    all.push(e.value);
  }
  assert.ok(all.length, "a submission was stored");
  return all[all.length - 1];
}

/** Fills the required fields and a few others, as a person would with the keyboard. */
async function fillBasics(page: Page, email = "ada@example.com") {
  await page.getByLabel("Full name").fill("Ada Lovelace");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Age").fill("36");
  await page.getByLabel("Track").selectOption("Engineering");
  await page.getByLabel("Expert").check();
  await page.getByLabel("Tue").check();
  await page.getByLabel("Wed").check();
  await page.getByLabel("About you").fill("Poet of science.");
  await page.getByLabel("I accept the terms").check();
}

async function cvFile(): Promise<string> {
  const path = await Deno.makeTempFile({ suffix: ".pdf" });
  await Deno.writeFile(path, SAMPLES.pdf);
  return path;
}

Deno.test({
  name: "hosted form browser - plain post and island",
  ignore: !(await chromiumPresent()),
  async fn(t) {
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = await testEnv({ BASE_URL: base, TRUST_PROXY: "0" });
    const ws: Workspace = await makeWorkspace(env.deps, "starter");
    const server = Deno.serve(
      { hostname: "127.0.0.1", port, onListen: () => {} },
      (req, info) => env.app.fetch(req, { remoteAddr: info.remoteAddr }),
    );
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const cv = await cvFile();
    const opened: { ctx: BrowserContext; close: () => Promise<void>; js: boolean }[] = [];
    const problems: string[] = [];
    /** A new page in the one browser of that mode (started on first use). */
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
        // A refused post or validation answers 4xx on purpose; Chromium logs each one.
        const expected = /status of 4(09|22|23)\b/.test(m.text());
        if (m.type() === "error" && !expected && !m.location().url.endsWith("/favicon.ico")) {
          problems.push(`${m.text()} ${m.location().url}`);
        }
      });
      return page;
    };
    const shot = (page: Page, name: string) =>
      page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });

    try {
      await t.step("JavaScript off: fill every field type with a file, see thanks", async () => {
        const form = await makeForm(env.deps, ws, APPLY);
        const page = await open(false);
        await page.setViewportSize(PHONE);
        await page.goto(`${base}/f/${form.id}?source=newsletter`);
        await shot(page, "form-phone");
        await page.setViewportSize(DESKTOP);
        await shot(page, "form-desktop");
        await fillBasics(page);
        await page.getByLabel("Start date").fill("2027-03-01");
        await page.getByLabel("CV").setInputFiles(cv);
        await page.getByRole("button", { name: "Send" }).click();
        await page.waitForURL(/\/thanks\?submission_id=sub_/);
        await page.getByRole("heading", { name: "Thank you" }).waitFor();
        await page.setViewportSize(PHONE);
        await shot(page, "thanks-phone");
        const sub = await latest(env, form);
        assert.equal(new URL(page.url()).searchParams.get("submission_id"), sub.id);
        const { cv: ref, ...rest } = sub.fields;
        assert.deepEqual(rest, {
          name: "Ada Lovelace",
          email: "ada@example.com",
          age: 36,
          track: "Engineering",
          level: "Expert",
          days: ["Tue", "Wed"],
          start: "2027-03-01",
          about: "Poet of science.",
          terms: true,
          source: "newsletter",
        });
        assert.equal((ref as { mimeType: string }).mimeType, "application/pdf");
        assert.equal(sub.files.length, 1);
      });

      await t.step("JavaScript off: a server-side error keeps what was typed", async () => {
        const form = await makeForm(env.deps, ws, APPLY);
        const page = await open(false);
        await page.setViewportSize(PHONE);
        await page.goto(`${base}/f/${form.id}`);
        // The browser accepts a@b; the service wants a dotted domain.
        await fillBasics(page, "ada@localhost");
        await page.getByRole("button", { name: "Send" }).click();
        await page.getByText("Please correct 1 field.").waitFor();
        await shot(page, "error-phone");
        assert.equal(await page.getByLabel("Full name").inputValue(), "Ada Lovelace");
        assert.equal(await page.getByLabel("About you").inputValue(), "Poet of science.");
        assert.equal(await page.getByLabel("Track").inputValue(), "Engineering");
        assert.ok(await page.getByLabel("Wed").isChecked());
        const email = page.getByLabel("Email");
        assert.equal(await email.getAttribute("aria-invalid"), "true");
        const errId = await email.getAttribute("aria-describedby");
        assert.match(await page.locator(`#${errId}`).innerText(), /valid email address/);
        await email.fill("ada@example.com");
        await page.getByRole("button", { name: "Send" }).click();
        await page.waitForURL(/\/thanks\?submission_id=sub_/);
        assert.equal(await recount(env.deps, form.id), 1);
      });

      await t.step("JavaScript off: a double click stores one submission", async () => {
        const form = await makeForm(env.deps, ws, APPLY);
        const page = await open(false);
        await page.goto(`${base}/f/${form.id}`);
        await fillBasics(page);
        await page.getByRole("button", { name: "Send" }).dblclick();
        // The second click aborts the first navigation, which waitForURL would report as a
        // failure: wait for the page the surviving one lands on instead.
        await page.getByRole("heading", { name: "Thank you" }).waitFor();
        assert.match(page.url(), /\/thanks\?submission_id=sub_/);
        assert.equal(await recount(env.deps, form.id), 1);
      });

      for (const b of opened.splice(0)) {
        await b.close();
      }

      await t.step("JavaScript on: validation next to fields, upload, JSON submit", async () => {
        const form = await makeForm(env.deps, ws, APPLY);
        const page = await open(true);
        const puts: string[] = [];
        page.on("request", (r) => r.method() === "PUT" && puts.push(r.url()));
        await page.setViewportSize(PHONE);
        await page.goto(`${base}/f/${form.id}`);
        await page.waitForFunction(() =>
          (document.querySelector("form") as HTMLFormElement)
            ?.noValidate
        );
        const email = page.getByLabel("Email");
        await email.fill("ada@localhost");
        await email.press("Tab"); // keyboard only: leaving the field validates it
        await page.locator("#f-fld_email-error").getByText("valid email address").waitFor();
        assert.equal(await email.getAttribute("aria-invalid"), "true");
        await shot(page, "island-inline-error-phone");
        // A file the field refuses is refused at once, by the rules module's own check.
        await page.getByLabel("CV").setInputFiles({
          name: "cv.txt",
          mimeType: "text/plain",
          buffer: Buffer.from("not a pdf"),
        });
        const cvError = page.locator(".field", { has: page.getByLabel("CV") }).locator(
          ".field-error",
        );
        await cvError.getByText("CV does not accept this file type.").waitFor();
        // Hold the PUT so the progress bar can be seen (and photographed) mid-upload.
        let release = () => {};
        const held = new Promise<void>((r) => release = r);
        await page.route("**/uploads/**", async (route) => {
          await held;
          await route.continue();
        });
        await page.getByLabel("CV").setInputFiles(cv);
        const bar = page.getByRole("progressbar", { name: "Uploading" });
        await bar.waitFor();
        await shot(page, "island-upload-progress-phone");
        release();
        await page.getByText("Uploaded", { exact: false }).waitFor();
        assert.equal(await bar.count(), 0);
        assert.equal((await cvError.textContent())?.trim(), "", "the right file clears it");
        await fillBasics(page);
        await page.getByRole("button", { name: "Send" }).click();
        await page.waitForURL(/\/thanks\?submission_id=sub_/);
        const sub = await latest(env, form);
        assert.equal(new URL(page.url()).searchParams.get("submission_id"), sub.id);
        assert.equal(puts.length, 1, "the file went through the signed URL");
        assert.equal(sub.files.length, 1);
        assert.equal(sub.fields.email, "ada@example.com");
        assert.deepEqual(sub.fields.days, ["Tue", "Wed"]);
        const a = await formAnalytics(env.deps, form, ws, "live");
        assert.equal(a.views, 1);
        assert.equal(a.starts, 1);
      });

      await t.step("JavaScript on: submit errors are announced and typed values kept", async () => {
        const form = await makeForm(env.deps, ws, APPLY);
        const page = await open(true);
        await page.setViewportSize(DESKTOP);
        await page.goto(`${base}/f/${form.id}`);
        await page.waitForFunction(() =>
          (document.querySelector("form") as HTMLFormElement)
            ?.noValidate
        );
        await page.getByLabel("About you").fill("Kept text");
        await page.getByRole("button", { name: "Send" }).click();
        const alert = page.getByRole("alert");
        await alert.getByText(/Please correct 3 fields/).waitFor();
        await shot(page, "island-submit-errors-desktop");
        assert.equal(await page.getByLabel("About you").inputValue(), "Kept text");
        assert.equal(await page.getByLabel("Full name").getAttribute("aria-invalid"), "true");
        assert.equal(await page.evaluate(() => document.activeElement?.id), "form-notice");
        assert.equal(await recount(env.deps, form.id), 0);
      });

      await t.step("JavaScript on: a double click stores one submission", async () => {
        const form = await makeForm(env.deps, ws, APPLY);
        const page = await open(true);
        await page.goto(`${base}/f/${form.id}`);
        await page.waitForFunction(() =>
          (document.querySelector("form") as HTMLFormElement)
            ?.noValidate
        );
        await fillBasics(page);
        await page.getByRole("button", { name: "Send" }).dblclick();
        // The second click aborts the first navigation, which waitForURL would report as a
        // failure: wait for the page the surviving one lands on instead.
        await page.getByRole("heading", { name: "Thank you" }).waitFor();
        assert.match(page.url(), /\/thanks\?submission_id=sub_/);
        assert.equal(await recount(env.deps, form.id), 1);
      });

      await t.step("JavaScript on: Back, edit and send again is not stuck", async () => {
        const form = await makeForm(env.deps, ws, APPLY);
        const page = await open(true);
        const island = () =>
          page.waitForFunction(() =>
            (document.querySelector("form") as HTMLFormElement)
              ?.noValidate
          );
        await page.goto(`${base}/f/${form.id}`);
        await island();
        await fillBasics(page);
        await page.getByRole("button", { name: "Send" }).click();
        await page.waitForURL(/\/thanks\?submission_id=sub_/);
        const firstId = new URL(page.url()).searchParams.get("submission_id");
        // Back shows the same page (same one-time key); the answers are still there.
        await page.goBack();
        await island();
        assert.equal(await page.getByLabel("Full name").inputValue(), "Ada Lovelace");
        await page.getByLabel("About you").fill("Edited after Back.");
        await page.getByRole("button", { name: "Send" }).click();
        // The spent key falls back to the plain post: the page says so, keeps the edit.
        await page.getByRole("alert").getByText(/already sent a response with different/)
          .waitFor();
        assert.equal(await page.getByLabel("About you").inputValue(), "Edited after Back.");
        assert.equal(await recount(env.deps, form.id), 1);
        await island();
        await page.getByRole("button", { name: "Send" }).click();
        await page.waitForURL(/\/thanks\?submission_id=sub_/);
        assert.notEqual(new URL(page.url()).searchParams.get("submission_id"), firstId);
        assert.equal(await recount(env.deps, form.id), 2);
        assert.equal((await latest(env, form)).fields.about, "Edited after Back.");
      });

      await t.step("JavaScript on: ALTCHA from our own origin, solved, then sent", async () => {
        const form = await makeForm(env.deps, ws, ALTCHA_FORM);
        const page = await open(true);
        const foreign: string[] = [];
        page.on("request", (r) => !r.url().startsWith(base) && foreign.push(r.url()));
        await page.setViewportSize(PHONE);
        await page.goto(`${base}/f/${form.id}`);
        await page.getByLabel("Email").fill("grace@example.com");
        // Keyboard only: Tab to the widget's checkbox and press Space.
        await page.getByLabel("Email").press("Tab");
        await page.keyboard.press("Space");
        await page.waitForFunction(
          () => {
            const v = new FormData(document.querySelector("form")!).get("altcha");
            return typeof v === "string" && v.length > 20;
          },
          undefined,
          { timeout: 30_000 },
        );
        await shot(page, "altcha-phone");
        await page.getByRole("button", { name: "Send" }).click();
        await page.waitForURL(/\/thanks\?submission_id=sub_/);
        const sub = await latest(env, form);
        assert.deepEqual(sub.fields, { email: "grace@example.com" });
        assert.equal(sub.signals.captcha?.provider, "altcha");
        assert.deepEqual(
          foreign.filter((u) => !u.startsWith("blob:") && !u.startsWith("data:")),
          [],
        );
      });

      assert.deepEqual(problems, []);
    } finally {
      for (const b of opened) {
        await b.close();
      }
      await server.shutdown();
      env.close();
      await Deno.remove(cv).catch(() => {});
      await Deno.remove(env.deps.config.localStorageDir, { recursive: true }).catch(() => {});
    }
  },
});
