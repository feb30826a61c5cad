/**
 * axe-core in a Playwright page: evaluated through the DevTools protocol (page CSPs forbid
 * injected script tags), then `axe.run()` on the whole document.
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";

const AXE_SOURCE = await Deno.readTextFile(
  new URL("../../node_modules/axe-core/axe.min.js", import.meta.url),
);

interface AxeViolation {
  id: string;
  help: string;
  nodes: { target: unknown[] }[];
}

/** Fails with each rule, its help text and the offending selectors when axe finds any. */
export async function assertNoAxeViolations(page: Page): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  // A string, so this file needs no DOM types: it runs in the page.
  const violations = await page.evaluate<AxeViolation[]>(
    `axe.run(document).then((r) => r.violations.map((v) => ({
      id: v.id, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })),
    })))`,
  );
  const lines = violations.map((v) =>
    `${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")}`
  );
  assert.deepEqual(lines, [], `axe violations on ${page.url()}`);
}
