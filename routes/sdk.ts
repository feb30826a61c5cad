/**
 * The client library, as any site loads it: `GET /sdk/formwell.js` (also `server.js`,
 * `react.js` and the source maps). Any origin may load it (CORS `*`); the ETag is the
 * library's version and the file's content hash (`If-None-Match` answers 304); the URL is
 * not versioned, so it is cached a day and revalidated, never `immutable`.
 * @module
 */
import { Hono } from "hono";
import type { AppEnv } from "@/lib/http/http.ts";
import { errors } from "@/lib/errors.ts";
import { sdkFiles, sdkVersion } from "@/lib/ui/sdk_bundle.ts";

/** How long browsers and CDNs may use a copy before revalidating it. */
export const SDK_CACHE_CONTROL = "public, max-age=86400, stale-while-revalidate=604800";

/** The `/sdk/*` route. */
export function sdkRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/sdk/:file{(?:formwell|server|react)\\.js(?:\\.map)?}", async (c) => {
    const name = c.req.param("file");
    const file = (await sdkFiles()).get(name);
    if (!file) throw errors.notFound();
    const etag = `"${await sdkVersion()}-${file.hash}"`;
    c.header("Access-Control-Allow-Origin", "*");
    c.header("Cross-Origin-Resource-Policy", "cross-origin");
    c.header("Cache-Control", SDK_CACHE_CONTROL);
    c.header("ETag", etag);
    const match = c.req.header("if-none-match")?.split(",").map((t) =>
      t.trim().replace(/^W\//, "")
    );
    if (match?.includes(etag)) return c.body(null, 304);
    c.header(
      "Content-Type",
      name.endsWith(".map") ? "application/json; charset=utf-8" : "text/javascript; charset=utf-8",
    );
    return c.body(file.contents);
  });
  return app;
}
