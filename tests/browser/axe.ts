/**
 * axe-core (npm `axe-core`) run inside a Chromium page: the page must have no
 * accessibility violations at all (WCAG 2 A/AA and axe's best-practice rules).
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";

const AXE = new URL("../../node_modules/axe-core/axe.min.js", import.meta.url);
let source: Promise<string> | null = null;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Injects axe into the page and runs it; fails listing every violation with its elements.
 */
export async function assertNoAxeViolations(page: Page, label = page.url()): Promise<void> {
  source ??= Deno.readTextFile(AXE);
  const axe = await source;
  // A string is evaluated through the DevTools protocol, which the page's CSP does not
  // govern (an eval() or a script tag inside the page would be refused by it).
  await page.evaluate(axe);
  const violations = await page.evaluate(async () => {
    const w = globalThis as unknown as {
      axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: unknown[] }> };
    };
    const result = await w.axe.run(document, { resultTypes: ["violations"] });
    return result.violations;
  }) as AxeViolation[];
  const lines = violations.map((v) =>
    `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`
  );
  assert.equal(violations.length, 0, `axe on ${label}:\n${lines.join("\n")}`);
}
