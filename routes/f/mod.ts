/**
 * The hosted pages (`/f/:public_id`, its thank-you page), Formspree's endpoint
 * (`POST /f/:public_id`) and the ALTCHA widget script, served from our own origin so a
 * hosted form needs no third party.
 * @module
 */
import { type Context, Hono } from "hono";
import { Fragment, h } from "preact";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import type { AppEnv } from "@/lib/http/http.ts";
import { isPageResult } from "@/lib/ui/define.ts";
import { type HostedPageModule, htmlPage } from "./_page.ts";
import { paramGuard } from "@/lib/http/validation.ts";
import { notFoundPage } from "./_message.tsx";
import { formspreePost } from "./_formspree.ts";
import { publicCors } from "@/lib/http/cors.ts";
import * as formPage from "./[id].tsx";
import * as thanksPage from "@/routes/f/[id]/thanks.tsx";

type Mounted = (deps: Deps, c: Context<AppEnv>) => Promise<Response>;

/** Path to page; Hono's `:param` syntax. */
const PAGES: [string, Mounted][] = [
  ["/f/:id", mount(formPage)],
  ["/f/:id/thanks", mount(thanksPage)],
];

/** The widget's self-contained browser bundle (styles and workers inlined). */
const ALTCHA_BUNDLE = new URL("../../node_modules/altcha/dist/main/altcha.min.js", import.meta.url);
let altcha: Promise<Uint8Array> | null = null;

/** The hosted pages sub-app, mounted at `/`. */
export function hostedRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // An id that the service cannot have issued is the not-found page before any read.
  const ids = paramGuard(() => notFoundPage());
  for (const [path, run] of PAGES) app.get(path, ids, (c) => run(deps, c));
  // Formspree's endpoint path: its clients post here (CORS as for the public API).
  const cors = publicCors(deps);
  app.use("/f/:id", (c, next) => c.req.method === "GET" ? next() : cors(c, next));
  app.post("/f/:id", (c) => formspreePost(deps, c));
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

/** Binds a page module's GET to the router, rendering its component with the data. */
function mount<T>(mod: HostedPageModule<T>): Mounted {
  return async (deps, c) => {
    const GET = mod.handler.GET;
    if (!GET) throw errors.notFound();
    const result = await GET({ deps, c, url: new URL(c.req.url), params: c.req.param() });
    if (!isPageResult(result)) return result;
    return htmlPage({
      title: result.title ?? "Formwell",
      status: result.status,
      headers: result.headers,
      lang: result.lang,
      body: h(Fragment, null, mod.default ? h(mod.default, { data: result.data }) : null),
    });
  };
}
