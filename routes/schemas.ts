/**
 * JSON Schemas of the files users keep in their repositories: `GET /schemas/formwell.json`
 * (forms as code), at a stable URL editors can name in `$schema`. Any origin may read it.
 * @module
 */
import { Hono } from "hono";
import type { AppEnv } from "@/lib/http/http.ts";
import { FORMWELL_SCHEMA_PATH, formwellFileJsonSchema } from "@/lib/forms/formwell_file.ts";

/** The `/schemas/*` routes. */
export function schemaRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  let text: string | undefined;
  app.get(FORMWELL_SCHEMA_PATH, (c) => {
    text ??= JSON.stringify(formwellFileJsonSchema(), null, 2);
    c.header("Access-Control-Allow-Origin", "*");
    c.header("Cross-Origin-Resource-Policy", "cross-origin");
    c.header("Cache-Control", "public, max-age=3600");
    c.header("Content-Type", "application/schema+json; charset=utf-8");
    return c.body(text);
  });
  return app;
}
