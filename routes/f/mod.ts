/**
 * The hosted pages (`/f/:public_id`, its thank-you page) and the ALTCHA widget script,
 * served from our own origin so a hosted form needs no third party.
 * @module
 */
import { Hono } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import type { AppEnv } from "@/lib/http/http.ts";
import type { HostedPageModule } from "./_page.ts";
import * as formPage from "./[id].tsx";
import * as thanksPage from "@/routes/f/[id]/thanks.tsx";

/** Path to page module; Hono's `:param` syntax. */
const PAGES: [string, HostedPageModule][] = [
  ["/f/:id", formPage],
  ["/f/:id/thanks", thanksPage],
];

/** The widget's self-contained browser bundle (styles and workers inlined). */
const ALTCHA_BUNDLE = new URL("../../node_modules/altcha/dist/main/altcha.min.js", import.meta.url);
let altcha: Promise<Uint8Array> | null = null;

/** The hosted pages sub-app, mounted at `/`. */
export function hostedRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  for (const [path, mod] of PAGES) {
    app.get(
      path,
      (c) => mod.handler.GET({ deps, c, url: new URL(c.req.url), params: c.req.param() }),
    );
  }
  app.get("/_vendor/altcha.js", async (c) => {
    altcha ??= Deno.readFile(ALTCHA_BUNDLE);
    let body: Uint8Array;
    try {
      body = await altcha;
    } catch {
      altcha = null;
      throw errors.notFound();
    }
    c.header("Content-Type", "text/javascript; charset=utf-8");
    c.header("Cache-Control", "public, max-age=86400");
    return c.body(body as Uint8Array<ArrayBuffer>);
  });
  return app;
}
