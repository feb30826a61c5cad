/**
 * Saved progress on the hosted page in headless Chromium: the notice shows before anything
 * is saved; typing saves ("Saved"); a reload restores the values from this browser; a
 * resume link restores them on another device; the submit stores one submission and
 * removes the draft. A step change saves at once (not only typing); without JavaScript a
 * resume link shows the answers and the plain post removes the draft; a form with file
 * fields says files are not saved; the bar speaks the page's language.
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { keys } from "@/lib/kv/keys.ts";
import type { Draft } from "@/lib/drafts/types.ts";
import { makeForm, makeWorkspace, postJson, recount, testEnv } from "@/tests/helpers.ts";
import { countUnder, DRAFT_FORM } from "@/tests/drafts_support.ts";
import { freePort } from "@/tests/processes.ts";
import { waitFor } from "@/tests/lib/notify/_support.ts";
import { chromiumPresent, launchChromium } from "./chromium.ts";

Deno.test({
  name: "drafts browser - type, reload or open the resume link, values restored, submit once",
  ignore: !(await chromiumPresent()),
  async fn(t) {
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = await testEnv({ BASE_URL: base, TRUST_PROXY: "0" });
    const server = Deno.serve(
      { hostname: "127.0.0.1", port, onListen: () => {} },
      (req, info) => env.app.fetch(req, { remoteAddr: info.remoteAddr }),
    );
    const launched = await launchChromium();
    const problems: string[] = [];
    const open = async () => {
      const page = await launched.context.newPage();
      page.setDefaultTimeout(15_000);
      page.on("pageerror", (e) => problems.push(String(e)));
      return page;
    };
    const saved = (page: Page) => page.locator(".draft-status", { hasText: "Saved" }).waitFor();
    try {
      const ws = await makeWorkspace(env.deps);
      const form = await makeForm(env.deps, ws, DRAFT_FORM);

      await t.step("type, reload in the same browser, values restored, submit once", async () => {
        const page = await open();
        await page.goto(`${base}/f/${form.id}`);
        await page.getByText("Your answers are saved as you type").waitFor();
        assert.equal(await countUnder(env, keys.drafts(form.id)), 0, "nothing stored yet");
        await page.getByLabel("Name").fill("Ada Lovelace");
        await page.getByLabel("Topic").selectOption("support");
        await saved(page);
        assert.equal(await countUnder(env, keys.drafts(form.id)), 1);
        await page.reload();
        await saved(page);
        assert.equal(await page.getByLabel("Name").inputValue(), "Ada Lovelace");
        assert.equal(await page.getByLabel("Topic").inputValue(), "support");
        await page.getByLabel("Email").fill("ada@example.com");
        await page.getByRole("button", { name: "Send" }).click();
        await page.waitForURL(/\/thanks/);
        assert.equal(await recount(env.deps, form.id), 1);
        assert.equal(await countUnder(env, keys.drafts(form.id)), 0, "the draft went with it");
        await page.goto(`${base}/f/${form.id}`);
        await page.getByText("Your answers are saved as you type").waitFor();
        assert.equal(await page.getByLabel("Name").inputValue(), "", "a fresh form next time");
        await page.close();
      });

      await t.step("the resume link restores the draft on another device", async () => {
        const started = await (await postJson(env, `/api/v1/forms/p/${form.id}/drafts`, {
          data: { name: "Grace Hopper", topic: "sales" },
        })).json();
        const other = await launchChromium();
        try {
          const page = await other.context.newPage();
          page.setDefaultTimeout(15_000);
          page.on("pageerror", (e) => problems.push(String(e)));
          await page.goto(
            `${base}/f/${form.id}?resume=${encodeURIComponent(started.resume_token)}`,
          );
          await saved(page);
          assert.equal(await page.getByLabel("Name").inputValue(), "Grace Hopper");
          assert.equal(await page.getByLabel("Topic").inputValue(), "sales");
          assert.ok(!page.url().includes("resume="), "the token leaves the address bar");
          await page.getByLabel("Email").fill("grace@example.com");
          await page.getByRole("button", { name: "Send" }).click();
          await page.waitForURL(/\/thanks/);
          assert.equal(await recount(env.deps, form.id), 2);
          assert.equal(await countUnder(env, keys.drafts(form.id)), 0);
        } finally {
          await other.close();
        }
      });
      await t.step("a step change saves at once, with the step", async () => {
        const stepped = await makeForm(env.deps, ws, {
          ...DRAFT_FORM,
          steps: [
            { title: "About you", fields: ["name", "email"] },
            { title: "Your question", fields: ["topic"] },
          ],
        });
        const only = async () => {
          const all: Draft[] = [];
          for await (const e of env.deps.kv.list<Draft>({ prefix: keys.drafts(stepped.id) })) {
            all.push(e.value);
          }
          assert.ok(all.length <= 1, "one draft");
          return all[0] as Draft | undefined;
        };
        const page = await open();
        await page.goto(`${base}/f/${stepped.id}`);
        await page.getByText("Step 1 of 2").waitFor();
        await page.getByLabel("Name").fill("Ada Lovelace");
        await page.getByLabel("Email").fill("ada@example.com");
        // The pause after typing saves once; from then on nothing is typed.
        await waitFor(
          "the typed save",
          async () => (await only())?.data.email === "ada@example.com",
        );
        await saved(page);
        assert.equal((await only())!.step, null, "typing alone names no step");
        await page.getByRole("button", { name: "Next" }).click();
        await page.getByText("Step 2 of 2").waitFor();
        await waitFor("the save of the step change", async () => (await only())?.step === 2, 5000);
        await page.getByRole("button", { name: "Back" }).click();
        await page.getByText("Step 1 of 2").waitFor();
        await waitFor("the save of going back", async () => (await only())?.step === 1, 5000);
        assert.equal((await only())!.furthest_step, 2);
        await page.close();
      });

      await t.step("without JavaScript: the resume link and the plain post", async () => {
        const started = await (await postJson(env, `/api/v1/forms/p/${form.id}/drafts`, {
          data: { name: "Katherine Johnson", topic: "support" },
        })).json();
        const before = await recount(env.deps, form.id);
        const nojs = await launchChromium({ javaScriptEnabled: false });
        try {
          const page = await nojs.context.newPage();
          page.setDefaultTimeout(15_000);
          await page.goto(
            `${base}/f/${form.id}?resume=${encodeURIComponent(started.resume_token)}`,
          );
          assert.equal(await page.getByLabel("Name").inputValue(), "Katherine Johnson");
          assert.equal(await page.getByLabel("Topic").inputValue(), "support");
          await page.getByLabel("Email").fill("katherine@example.com");
          await page.getByRole("button", { name: "Send" }).click();
          await page.waitForURL(/\/thanks/);
          assert.equal(await recount(env.deps, form.id), before + 1);
          assert.equal(
            (await env.deps.kv.get(keys.draft(form.id, started.draft_id))).value,
            null,
            "the post removed its draft",
          );
        } finally {
          await nojs.close();
        }
      });

      await t.step("a form with a file field says files are not saved", async () => {
        const withFile = await makeForm(env.deps, ws, {
          ...DRAFT_FORM,
          fields: [...DRAFT_FORM.fields!, { name: "cv", label: "CV", type: "file" }],
        });
        const page = await open();
        await page.goto(`${base}/f/${withFile.id}`);
        await page.getByText("Files are not saved").waitFor();
        await page.goto(`${base}/f/${form.id}`);
        await page.getByText("Your answers are saved as you type").waitFor();
        assert.equal(await page.getByText("Files are not saved").count(), 0);
        await page.close();
      });
      await t.step("the drafts bar speaks the page's language, and mails a link", async () => {
        const german = await makeForm(env.deps, ws, {
          ...DRAFT_FORM,
          translations: { de: { form: { title: "Kontakt" } } },
        });
        const page = await open();
        await page.goto(`${base}/f/${german.id}?lang=de`);
        await page.getByText("Ihre Antworten werden beim Tippen gespeichert (7 Tage lang)")
          .waitFor();
        await page.getByLabel("Name").fill("Lise Meitner");
        await page.locator(".draft-status", { hasText: "Gespeichert" }).waitFor();
        await page.getByRole("button", { name: "Link zum späteren Weitermachen per E-Mail senden" })
          .click();
        await page.getByLabel("Link zum späteren Weitermachen per E-Mail senden")
          .fill("lise@example.com");
        await page.getByRole("button", { name: "Link senden" }).click();
        await page.getByText("Wir haben einen Link an lise@example.com gesendet. Er gilt 7 Tage.")
          .waitFor();
        await page.close();
      });
      assert.deepEqual(problems, []);
    } finally {
      await launched.close();
      await server.shutdown();
      env.close();
    }
  },
});
