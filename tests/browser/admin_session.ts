/**
 * What the admin browser tests share: the app served on a local port, a Chromium page
 * (desktop viewport, 10 s default timeout) and signing in through the real login form.
 * @module
 */
import type { Page } from "playwright-core";
import type { TestEnv } from "@/tests/helpers.ts";
import { launchChromium } from "./chromium.ts";

/** Serves `env`'s app on 127.0.0.1:`port`, passing each request's remote address. */
export function serveApp(env: TestEnv, port: number): Deno.HttpServer {
  return Deno.serve(
    { hostname: "127.0.0.1", port, onListen: () => {} },
    (req, info) => env.app.fetch(req, { remoteAddr: info.remoteAddr }),
  );
}

/** A fresh Chromium at 1280x900 and its first page, with a 10 s default timeout. */
export async function openPage(): Promise<{
  browser: Awaited<ReturnType<typeof launchChromium>>;
  page: Page;
}> {
  const browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
  const page = browser.context.pages()[0] ?? await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  return { browser, page };
}

/** Signs in through `/admin/login` and waits for the forms list. */
export async function signIn(
  page: Page,
  base: string,
  email: string,
  password: string,
): Promise<void> {
  await page.goto(`${base}/admin/login`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${base}/admin/forms`);
}
