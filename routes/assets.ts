/**
 * Static assets: island bundles (`/_islands/*`) and the stylesheet (`/static/*`).
 * @module
 */
import { Hono } from "hono";
import type { AppEnv } from "@/lib/http/http.ts";
import { errors } from "@/lib/errors.ts";
import { islandFiles } from "@/lib/ui/islands.ts";

const STATIC_DIR = new URL("../static/", import.meta.url);
const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
};

/** Asset routes. */
export function assetRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/_islands/:file", async (c) => {
    const file = (await islandFiles()).get(c.req.param("file"));
    if (!file) throw errors.notFound();
    c.header("Content-Type", TYPES.js);
    c.header("Cache-Control", "no-cache");
    c.header("ETag", `"${file.hash}"`);
    return c.body(file.contents);
  });
  // Browsers ask for /favicon.ico by themselves (a JSON document, a file); pages link the SVG.
  app.get("/favicon.ico", (c) => c.redirect("/static/favicon.svg", 301));
  app.get("/static/:file{[A-Za-z0-9_.-]+}", async (c) => {
    const name = c.req.param("file");
    const ext = name.split(".").pop() ?? "";
    if (!TYPES[ext] || name.startsWith(".")) throw errors.notFound();
    try {
      const body = await Deno.readFile(new URL(name, STATIC_DIR));
      c.header("Content-Type", TYPES[ext]);
      c.header("Cache-Control", "public, max-age=300");
      return c.body(body);
    } catch {
      throw errors.notFound();
    }
  });
  return app;
}
