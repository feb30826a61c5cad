/**
 * The form builder's logic editors in headless Chromium against the real app: a condition
 * picked from field, operator and value (with an any-group inside), shown on the field's
 * card and followed by the preview; fields arranged into steps; a translation with its
 * missing count and a preview in that language; all of it saved as the definition.
 */
import assert from "node:assert/strict";
import { createUser } from "@/lib/admin/users.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Form } from "@/lib/schemas.ts";
import { makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { freePort } from "@/tests/processes.ts";
import { chromiumPresent } from "./chromium.ts";
import { openPage, serveApp, signIn } from "./admin_session.ts";

const PASSWORD = "builder-logic-password";

Deno.test({
  name: "builder logic browser - conditions, steps and translations",
  ignore: !(await chromiumPresent()),
  async fn(t) {
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = await testEnv({ BASE_URL: base, TRUST_PROXY: "0" });
    const ws = await makeWorkspace(env.deps, "starter");
    await createUser(env.deps, {
      email: "owner@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "owner",
      owner: true,
    });
    const server = serveApp(env, port);
    const { browser, page } = await openPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    const hydrated = () => page.locator('[data-island="FieldBuilder"][data-hydrated]').waitFor();
    try {
      await signIn(page, base, "owner@example.com", PASSWORD);
      let formId = "";

      await t.step("a condition without JSON, on the card and in the preview", async () => {
        await page.goto(`${base}/admin/forms/new`);
        await hydrated();
        await page.getByLabel("Form name").fill("Order");
        await page.getByRole("button", { name: "Remove message" }).click();
        await page.locator("#add-type").selectOption("radio");
        await page.getByRole("button", { name: "Add field" }).click();
        let card = page.locator(".field-card").last();
        await card.getByLabel("Name (data key)").fill("customer_type");
        await card.getByLabel("Options (one per line)").fill("person\ncompany");
        await page.locator("#add-type").selectOption("text");
        await page.getByRole("button", { name: "Add field" }).click();
        card = page.locator(".field-card").last();
        await card.getByLabel("Name (data key)").fill("company");
        await card.getByLabel("Label", { exact: true }).fill("Company name");
        await card.getByLabel("Required").check();
        await card.getByLabel("Only under a condition").check();
        await card.getByLabel("Field", { exact: true }).selectOption("customer_type");
        await card.getByLabel("Operator", { exact: true }).selectOption("eq");
        await card.getByLabel("Value", { exact: true }).selectOption("company");
        // An any-group inside: (name is filled in or email is filled in).
        await card.getByRole("button", { name: "Add group" }).click();
        const group = card.locator(".cond-group.nested");
        await group.getByLabel("Where").selectOption("any");
        await group.getByLabel("Field", { exact: true }).selectOption("name");
        await group.getByLabel("Operator", { exact: true }).selectOption("filled");
        await group.getByRole("button", { name: "Add condition" }).click();
        await group.getByLabel("Field", { exact: true }).nth(1).selectOption("email");
        await group.getByLabel("Operator", { exact: true }).nth(1).selectOption("filled");
        await card.locator(".cond-summary", {
          hasText: "customer_type is company and (Name is filled in or Email is filled in)",
        }).waitFor();
        // The preview follows the condition as its own answers change.
        const preview = page.locator(".preview");
        assert.equal(await preview.getByLabel("Company name").count(), 0);
        await preview.getByLabel("company", { exact: true }).check();
        await preview.getByLabel(/^Name/).fill("Ada");
        await preview.getByLabel("Company name").waitFor();
        await preview.getByLabel("person", { exact: true }).check();
        await preview.getByLabel("Company name").waitFor({ state: "detached" });
      });

      await t.step("fields arranged into steps", async () => {
        await page.getByRole("button", { name: "Add step" }).click();
        await page.getByRole("button", { name: "Add step" }).click();
        await page.getByLabel("Step 1 title").fill("You");
        await page.getByLabel("Step 2 title").fill("Company");
        const step2 = page.locator(".step-card").nth(1);
        await step2.getByLabel("Company name").check();
        // A field is in one step only: it left step 1.
        const step1 = page.locator(".step-card").first();
        assert.equal(await step1.getByLabel(/Company name/).isChecked(), false);
        await page.locator(".field-card", { hasText: "Company name" }).getByText("step “Company”")
          .waitFor();
        await page.locator(".preview").getByRole("heading", { name: "Company" }).waitFor();
      });

      await t.step("a translation: what is missing, then a preview in it", async () => {
        await page.getByLabel("Add a language").fill("de");
        await page.getByRole("button", { name: "Add language" }).click();
        const de = page.locator(".lang-list > li", { hasText: "de" });
        const before = Number(/(\d+) missing/.exec(await de.locator(".badge").innerText())?.[1]);
        assert.ok(before > 3, `${before} texts missing`);
        await de.getByLabel("Form title").fill("Bestellung");
        await de.getByLabel("Company name: label").fill("Firmenname");
        await de.getByLabel("customer_type: option “company”").fill("Firma");
        await de.getByLabel("Step “Company”: title").fill("Firmendaten");
        await de.locator(".badge", { hasText: `${before - 4} missing` }).waitFor();
        await page.getByLabel("Preview language").selectOption("de");
        const preview = page.locator(".preview");
        await preview.getByText("Bestellung").waitFor();
        await preview.getByRole("heading", { name: "Firmendaten" }).waitFor();
        await preview.getByRole("heading", { name: "You", exact: true }).waitFor();
        await preview.getByLabel("Firma", { exact: true }).check();
        await preview.getByLabel("Firmenname").waitFor();
      });

      await t.step("saved as the definition, shown again on edit", async () => {
        await page.getByRole("button", { name: "Create form" }).click();
        await page.waitForURL(/\/admin\/forms\/f[0-9A-Za-z]+\?notice=form_created$/);
        formId = new URL(page.url()).pathname.split("/")[3];
        const form = (await env.deps.kv.get<Form>(keys.form(formId))).value!;
        const company = form.fields.find((f) => f.name === "company")!;
        assert.deepEqual(company.when, {
          and: [
            { "==": [{ var: "customer_type" }, "company"] },
            { or: [{ "!!": [{ var: "name" }] }, { "!!": [{ var: "email" }] }] },
          ],
        });
        assert.deepEqual(form.steps, [
          { title: "You", fields: ["name", "email", "customer_type"] },
          { title: "Company", fields: ["company"] },
        ]);
        assert.deepEqual(form.translations?.de, {
          form: { title: "Bestellung" },
          fields: {
            company: { label: "Firmenname" },
            customer_type: { options: { company: "Firma" } },
          },
          steps: { Company: "Firmendaten" },
        });
        await page.goto(`${base}/admin/forms/${formId}/edit`);
        await page.locator(".field-card", { hasText: "Company name" }).locator(".cond-summary", {
          hasText: "customer_type is company and (Name is filled in or Email is filled in)",
        }).waitFor();
      });

      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
      await server.shutdown();
      env.close();
    }
  },
});
