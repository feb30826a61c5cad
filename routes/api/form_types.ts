/**
 * `GET /api/v1/forms/p/<id>/types.ts`: the form's data as a TypeScript module (type,
 * rules, validator, schema version; lib/forms/typescript.ts). Public like the schema, rate
 * limited with it; `ETag` as the schema's, so `If-None-Match` answers 304.
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Deps } from "@/lib/deps.ts";
import { apiApp, PUBLIC } from "@/lib/api/app.ts";
import { errorResponses, formIdParams } from "@/lib/api/schemas.ts";
import { requireLiveForm } from "@/lib/forms/forms.ts";
import { formTypesModule } from "@/lib/forms/typescript.ts";
import { type AppEnv, limitByClientIp } from "@/lib/http/http.ts";

const typesRoute = createRoute({
  method: "get",
  path: "/forms/p/{id}/types.ts",
  operationId: "getFormTypes",
  tags: ["Public"],
  security: PUBLIC,
  summary: "Get a form's TypeScript types",
  description: "A TypeScript module with the type of the form's `data`, its validator and its " +
    "schema version, so a changed form fails a site's type check. `If-None-Match` gets 304.",
  request: { params: formIdParams },
  responses: {
    200: {
      description: "The module.",
      content: { "application/typescript": { schema: z.string() } },
    },
    304: { description: "Not modified (the `ETag` matched)." },
    ...errorResponses(404, 429),
  },
});

/** The types route, mounted at `/api/v1`. */
export function formTypesApi(deps: Deps): OpenAPIHono<AppEnv> {
  const app = apiApp<AppEnv>();
  app.openapi(typesRoute, async (c) => {
    await limitByClientIp(deps, c, "schema");
    const { form } = await requireLiveForm(deps, c.req.valid("param").id);
    const etag = `"types-v${form.schema_version}-${Date.parse(form.updated_at).toString(36)}"`;
    c.header("ETag", etag);
    c.header("Cache-Control", "no-cache");
    if (c.req.header("if-none-match") === etag) return c.body(null, 304);
    // Deno imports a URL by its media type: this one is TypeScript.
    c.header("Content-Type", "application/typescript; charset=utf-8");
    return c.body(await formTypesModule(form), 200);
  });
  return app;
}
