/**
 * `GET /api/v1/openapi.json`: the API's OpenAPI 3.1 document, built from the route
 * definitions once (on the first request) and kept; the reference page (/docs/api) reads it.
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Env } from "hono";
import type { Config } from "@/lib/config.ts";
import { buildOpenApiDocument, type OpenApiDocument } from "@/lib/api/document.ts";
import { jsonResponse } from "@/lib/api/schemas.ts";
import { PUBLIC } from "@/lib/api/app.ts";

const documentRoute = createRoute({
  method: "get",
  path: "/api/v1/openapi.json",
  operationId: "getOpenApiDocument",
  tags: ["Meta"],
  security: PUBLIC,
  summary: "Get this OpenAPI document",
  description: "The OpenAPI 3.1 document of every `/api/v1` route. The reference at " +
    "`/docs/api` renders it.",
  responses: { 200: jsonResponse("The document.", z.looseObject({ openapi: z.string() })) },
});

/**
 * Adds the document route to `api`; call it after every route is defined on `api`, whose
 * registry the document is built from.
 */
export function documentApi<E extends Env>(api: OpenAPIHono<E>, config: Config): void {
  let doc: OpenApiDocument | null = null;
  api.openapi(documentRoute, (c) => {
    doc ??= buildOpenApiDocument(api, config);
    c.header("Cache-Control", "public, max-age=300");
    // Public information: API tools on any origin may read it.
    c.header("Access-Control-Allow-Origin", "*");
    return c.json(doc, 200);
  });
}
