/**
 * Debian's Chromium driven by npm playwright-core (no downloaded browser): one launch
 * for every browser test, with the flags this closed network needs.
 * @module
 */
import { type Browser, type BrowserContext, chromium } from "playwright-core";

/** Where Debian installs Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

/**
 * Whether the browser tests run: they need Debian's chromium. Outside CI a missing
 * browser skips them with a hint; in CI (`CI=true`) it is a failure, never a silent skip.
 */
export async function chromiumPresent(): Promise<boolean> {
  const present = await Deno.stat(CHROMIUM).then(() => true, () => false);
  if (!present && Deno.env.get("CI")) {
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  }
  if (!present) {
    console.warn(`skipping browser tests: ${CHROMIUM} is missing (apt-get install chromium)`);
  }
  return present;
}

/** The flags every launch uses (no sandbox or GPU in containers, no network chatter). */
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** One browser for many contexts (each with its own viewport, colour scheme and cookies). */
export async function launchBrowser(): Promise<Browser> {
  return await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/** A fresh persistent context in a new temp profile; `close` also removes the profile. */
export async function launchChromium(
  options: Parameters<typeof chromium.launchPersistentContext>[1] = {},
): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "formwell-chromium-" });
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    ...options,
  });
  const close = async () => {
    await context.close().catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  return { context, close };
}
