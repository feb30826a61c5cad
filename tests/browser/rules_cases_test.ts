/**
 * The shared case table (tests/rules_cases.ts) through the hosted page in headless
 * Chromium, the last consumer of the form rules (tests/routes/rules_consumers_test.ts runs
 * the others): each case's values are put into the page's controls, then the page must
 * show and hide exactly the fields the rules module shows, display the computed total it
 * computes, refuse an earlier step offline with the same problems and messages (the page's
 * bundled rules), and at the end answer as the table says: the same problems beside the
 * fields, or a stored submission with the table's values. A case a page cannot express
 * (unknown keys, a value of the wrong JSON type) is named as such. An unticked box is
 * absent from what a page sends (as in a form post), so a table's `false` is absent from
 * what the page's submission stores.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { ids } from "@/components/fields.ts";
import { keys } from "@/lib/kv/keys.ts";
import { evaluateForm } from "@/lib/rules/mod.ts";
import type { Field, Form, Submission } from "@/lib/schemas.ts";
import { makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { freePort } from "@/tests/processes.ts";
import { LOGIC_FORM, RULE_CASES } from "@/tests/rules_cases.ts";
import { chromiumPresent, launchChromium } from "./chromium.ts";

/**
 * The case's values as a visitor can enter them, or null when no page control can; and
 * the names of unticked boxes (a page sends nothing for them).
 */
function enterable(
  form: Form,
  data: Record<string, unknown>,
): { values: Record<string, unknown>; unticked: string[] } | null {
  const out: Record<string, unknown> = {};
  const unticked: string[] = [];
  for (const [name, v] of Object.entries(data)) {
    const f = form.fields.find((x) => x.name === name);
    if (!f) return null;
    // A computed field has no control; the service ignores a sent value anyway.
    if (f.compute !== undefined) continue;
    const fits = f.type === "number" || f.type === "integer"
      ? typeof v === "number"
      : f.type === "boolean"
      ? typeof v === "boolean"
      : typeof v === "string";
    if (!fits) return null;
    out[name] = v;
    if (v === false) unticked.push(name);
  }
  return { values: out, unticked };
}

/**
 * Sets the page's controls as a visitor would type, with their input events (no change
 * events: those start the page's check of touched fields through `/validate`, and the
 * steps below must be checked by the page's own rules).
 */
function fill(page: Page, values: Record<string, unknown>): Promise<void> {
  return page.evaluate((values) => {
    const form = document.querySelector<HTMLFormElement>("form.hosted-form")!;
    for (const [name, v] of Object.entries(values)) {
      for (const el of form.querySelectorAll<HTMLInputElement>(`[name="${CSS.escape(name)}"]`)) {
        if (el.type === "checkbox" || el.type === "radio") {
          el.checked = v === true || v === el.value;
        } else el.value = String(v);
        el.dispatchEvent(new Event("input", { bubbles: true }));
      }
    }
  }, values);
}

/** Each field's error line as the page shows it (non-empty ones), field name to text. */
function shownErrors(page: Page, fields: Field[]): Promise<Record<string, string>> {
  const lines = fields.filter((f) => f.type !== "hidden").map((f) => [f.name, ids(f).error]);
  return page.evaluate((lines) => {
    const out: Record<string, string> = {};
    for (const [name, id] of lines) {
      const text = document.getElementById(id)?.textContent?.trim();
      if (text) out[name] = text;
    }
    return out;
  }, lines);
}

/** Whether each field is hidden by the rules (its row's `hidden`), field name to flag. */
function hiddenRows(page: Page, fields: Field[]): Promise<Record<string, boolean>> {
  const rows = fields.filter((f) => f.type !== "hidden").map((f) => [f.name, ids(f).control]);
  return page.evaluate((rows) =>
    Object.fromEntries(rows.map(([name, id]) => {
      const row = document.getElementById(id)?.closest(".field, fieldset");
      return [name, row ? (row as HTMLElement).hidden === true : true];
    })), rows);
}

Deno.test({
  name: "rules consumers browser - the hosted page answers the shared case table",
  ignore: !(await chromiumPresent()),
  async fn(t) {
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = await testEnv({
      BASE_URL: base,
      TRUST_PROXY: "0",
      RATE_LIMITS: JSON.stringify({ submit: 10000, validate: 10000, schema: 10000 }),
    });
    const server = Deno.serve(
      { hostname: "127.0.0.1", port, onListen: () => {} },
      (req, info) => env.app.fetch(req, { remoteAddr: info.remoteAddr }),
    );
    const launched = await launchChromium({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    try {
      const ws = await makeWorkspace(env.deps, "business");
      const form = await makeForm(env.deps, ws, LOGIC_FORM);
      const steps = form.steps!;
      const stepOf = (name: string) => steps.findIndex((s) => s.fields.includes(name));
      for (const c of RULE_CASES) {
        const entered = enterable(form, c.data);
        if (!entered) {
          // Said, not hidden: the case is one only an API client can send.
          await t.step(`${c.name}: no page control can send it, only the API`, () => {
            assert.equal(c.typeCheck, false, "the generated Data type refuses it too");
          });
          continue;
        }
        const { values, unticked } = entered;
        await t.step(c.name, async () => {
          const sent = Object.fromEntries(
            Object.entries(values).filter(([n]) => !unticked.includes(n)),
          );
          const answer = evaluateForm(form, sent);
          // What a page sends answers as the table's data does.
          assert.deepEqual(answer.errors.map((e) => `${e.field}:${e.type}`), c.errors);
          const expected: Record<string, string> = {};
          for (const e of answer.errors) expected[e.field] ??= e.message;
          const page = await launched.context.newPage();
          page.setDefaultTimeout(15_000);
          page.on("pageerror", (e) => problems.push(`${c.name}: ${e}`));
          try {
            await page.goto(`${base}/f/${form.id}`);
            await page.locator('[data-island="HostedForm"][data-hydrated]').waitFor();
            await fill(page, values);

            // Shown and hidden fields, and the computed total, as the rules module says.
            await page.waitForFunction(
              ([id, text]) => document.getElementById(id)?.textContent === text,
              [
                ids(form.fields.find((f) => f.name === "total")!).control,
                answer.computed.total === undefined ? "—" : String(answer.computed.total),
              ],
            );
            const hidden = await hiddenRows(page, form.fields);
            for (const f of form.fields.filter((f) => f.type !== "hidden")) {
              assert.equal(hidden[f.name], answer.shown[f.name] === false, `${f.name} hidden`);
            }

            // Earlier steps, offline: the page's own rules refuse a step or let it go.
            const order = answer.steps.flatMap((on, i) => (on ? [i] : []));
            for (const step of order.slice(0, -1)) {
              const mine = Object.fromEntries(
                Object.entries(expected).filter(([n]) => stepOf(n) === step),
              );
              await page.context().setOffline(true);
              const label = await page.locator("#step-progress-label").textContent();
              await page.getByRole("button", { name: "Next" }).click();
              await page.waitForFunction(
                (prev) =>
                  document.getElementById("step-progress-label")?.textContent !== prev ||
                  [...document.querySelectorAll(".form-step:not([hidden]) .field-error")]
                    .some((e) => e.textContent?.trim()),
                label,
              );
              await page.context().setOffline(false);
              const here = form.fields.filter((f) => stepOf(f.name) === step);
              assert.deepEqual(await shownErrors(page, here), mine, `step ${step + 1}`);
              if (Object.keys(mine).length) {
                assert.deepEqual(mine, expected, "every problem is on this step");
                return;
              }
            }

            // The last step: sent, the page shows the service's answer.
            await page.getByRole("button", { name: "Send" }).click();
            if (c.errors.length) {
              await page.waitForFunction(() =>
                [...document.querySelectorAll(".field-error")].some((e) => e.textContent?.trim())
              );
              assert.deepEqual(await shownErrors(page, form.fields), expected, "refused");
              return;
            }
            await page.waitForURL(/\/thanks\?submission_id=sub_/);
            const id = new URL(page.url()).searchParams.get("submission_id")!;
            const stored = await env.deps.kv.get<Submission>(keys.submission(form.id, id));
            const expectedStored = Object.fromEntries(
              Object.entries(c.stored!).filter(([n]) => !unticked.includes(n)),
            );
            assert.deepEqual(stored.value?.fields, expectedStored, "stored");
          } finally {
            await page.close();
          }
        });
      }
      assert.deepEqual(problems, []);
    } finally {
      await launched.close();
      await server.shutdown();
      env.close();
    }
  },
});
