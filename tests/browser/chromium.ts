/**
 * Debian's Chromium driven by npm playwright-core (no downloaded browser): one launch
 * for every browser test, with the flags this closed network needs.
 * @module
 */
import { type Browser, type BrowserContext, chromium } from "playwright-core";

/** Where Debian installs Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

/** Whether `CI` names a CI run (`true`, `1`, any value but `false`, `0` or empty). */
export function inCi(value: string | undefined): boolean {
  return value !== undefined && !["", "0", "false"].includes(value.trim().toLowerCase());
}

/**
 * Whether the browser tests run: they need Debian's chromium at `path`. In CI (`CI=true`)
 * a missing browser throws, which fails every browser test file at load; outside CI the
 * tests are skipped, with a warning on stderr naming what to install.
 */
export async function chromiumPresent(
  path: string = CHROMIUM,
  ci: boolean = inCi(Deno.env.get("CI")),
): Promise<boolean> {
  const present = await Deno.stat(path).then((s) => s.isFile, () => false);
  if (present) return true;
  if (ci) throw new Error(`${path} is missing, and CI is set: apt-get install chromium`);
  console.warn(
    `%cSKIPPING THE BROWSER TESTS: ${path} is missing (apt-get install chromium). ` +
      "With CI=true they fail instead.",
    "color: red; font-weight: bold",
  );
  return false;
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
