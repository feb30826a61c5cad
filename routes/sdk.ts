/**
 * The client library, as any site loads it: `GET /sdk/formwell.js` (also `server.js`,
 * `react.js` and the source maps). Any origin may load it (CORS `*`); the ETag is the
 * library's version and the file's content hash (`If-None-Match` answers 304); the URL is
 * not versioned, so it is cached a day and revalidated, never `immutable`. The same code as
 * an npm package: `GET /sdk/formwell-client.tgz` (`npm install <base_url>/sdk/formwell-client.tgz`).
 * @module
 */
import { type Context, Hono } from "hono";
import type { AppEnv } from "@/lib/http/http.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { logger } from "@/lib/observe/log.ts";
import { CLIENT_TGZ, clientPackage } from "@/lib/ui/sdk_package.ts";
import { sdkFiles, sdkVersion } from "@/lib/ui/sdk_bundle.ts";

/** How long browsers and CDNs may use a copy before revalidating it. */
export const SDK_CACHE_CONTROL = "public, max-age=86400, stale-while-revalidate=604800";

/** The npm package (`@formwell/client`), or a 503 saying why it cannot be built here. */
async function servePackage(c: Context<AppEnv>): Promise<Response> {
  let tgz: Uint8Array;
  try {
    tgz = await clientPackage();
  } catch (err) {
    logger.error("client package build failed", { error: err });
    throw new AppError(
      503,
      "unavailable",
      "The npm package of the client library could not be built on this server (it needs node, npm and the typescript package: run npm ci, or deno task build-sdk). Try again later.",
    );
  }
  c.header("Access-Control-Allow-Origin", "*");
  c.header("Cross-Origin-Resource-Policy", "cross-origin");
  c.header("Cache-Control", SDK_CACHE_CONTROL);
  c.header("Content-Type", "application/gzip");
  c.header("Content-Disposition", `attachment; filename="${CLIENT_TGZ}"`);
  return c.body(tgz as Uint8Array<ArrayBuffer>);
}

/** The `/sdk/*` route. */
export function sdkRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // One pattern: Hono's router refuses a static path beside this one.
  const files = "(?:formwell|server|react)\\.js(?:\\.map)?|formwell-client\\.tgz";
  app.get(`/sdk/:file{${files}}`, async (c) => {
    const name = c.req.param("file");
    if (name === CLIENT_TGZ) return await servePackage(c);
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
