/**
 * `GET /api/v1/forms/p/<id>/types.ts`: the form's data as a TypeScript module (type,
 * rules, validator, schema version; lib/forms/typescript.ts). Public like the schema, rate
 * limited with it; `ETag` as the schema's, so `If-None-Match` answers 304.
 * @module
 */
import { Hono } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { requireLiveForm } from "@/lib/forms/forms.ts";
import { formTypesModule } from "@/lib/forms/typescript.ts";
import { type AppEnv, limitByClientIp } from "@/lib/http/http.ts";

/** The types route, mounted at `/api/v1`. */
export function formTypesApi(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/forms/p/:id/types.ts", async (c) => {
    await limitByClientIp(deps, c, "schema");
    const { form } = await requireLiveForm(deps, c.req.param("id"));
    const etag = `"types-v${form.schema_version}-${Date.parse(form.updated_at).toString(36)}"`;
    c.header("ETag", etag);
    c.header("Cache-Control", "no-cache");
    if (c.req.header("if-none-match") === etag) return c.body(null, 304);
    // Deno imports a URL by its media type: this one is TypeScript.
    c.header("Content-Type", "application/typescript; charset=utf-8");
    return c.body(await formTypesModule(form));
  });
  return app;
}
