/**
 * The OpenAPI 3.1 document of `/api/v1`, built from the routes' own definitions (their
 * registry) once per app: info, the server from `BASE_URL`, the security schemes, tags,
 * `X-Request-Id` on every response, and a curl example (`x-codeSamples`) on every operation.
 * @module
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "hono";
import type { Config } from "@/lib/config.ts";

/** The tags, in the order the reference shows them. */
const TAGS = [
  { name: "Public", description: "What a page calls: no credential, rate limited per IP." },
  { name: "Drafts", description: "Saved progress: a visitor's draft, read with its token." },
  { name: "Uploads", description: "Two-step file uploads: a signed URL, then the bytes." },
  { name: "Forms and submissions", description: "Server Data API: needs a secret API key." },
  { name: "Webhooks", description: "Signed event delivery to your endpoints." },
  { name: "Events", description: "The event feed: the same events, read in order." },
  { name: "Privacy", description: "Export and erase a person's data." },
  { name: "Audit", description: "The workspace's audit log." },
  { name: "Meta", description: "This document." },
];

/** An OpenAPI document as JSON (the parts this module reads). */
export type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  [k: string]: unknown;
};
type Operation = {
  description?: string;
  security?: unknown[];
  requestBody?: { content?: Record<string, { example?: unknown }> };
  responses?: Record<string, { headers?: Record<string, unknown> }>;
  [k: string]: unknown;
};

/** Builds the document of `api` (an app holding the `/api/v1` routes under their full paths). */
export function buildOpenApiDocument<E extends Env>(
  api: OpenAPIHono<E>,
  config: Pick<Config, "baseUrl">,
): OpenApiDocument {
  api.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "A secret API key (`fw_live_...` or `fw_test_...`) from the admin's Keys page.",
  });
  api.openAPIRegistry.registerComponent("securitySchemes", "storageToken", {
    type: "http",
    scheme: "bearer",
    description: "The `storageToken` an upload-URL answer grants for one file.",
  });
  api.openAPIRegistry.registerComponent("securitySchemes", "resumeToken", {
    type: "http",
    scheme: "bearer",
    description: "The `resume_token` a draft's start returned (a wrong or expired one is 404).",
  });
  api.openAPIRegistry.registerComponent("headers", "X-Request-Id", {
    description: "The request's id (an incoming well-formed `X-Request-Id` is kept); error " +
      "bodies repeat it as `request_id`.",
    required: true,
    schema: { type: "string", example: "req_3kTq9ZxW1bVn7YpLmD2c" },
  });
  const doc = api.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Formwell API",
      version: "1",
      description: "The form backend's HTTP API. Public routes take no credential; the " +
        "Server Data API (`/api/v1/server/...`) takes `Authorization: Bearer <API key>`. " +
        "Errors are JSON: `{error, code}` (422 adds `errors`).",
    },
    servers: [{ url: config.baseUrl.replace(/\/+$/, "") }],
    tags: TAGS,
  }) as unknown as OpenApiDocument;
  nullableRefs(doc);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      for (const res of Object.values(op.responses ?? {})) {
        res.headers = {
          "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
          ...res.headers,
        };
      }
      const curl = curlOf(method, path, op);
      op["x-codeSamples"] = [{ lang: "Shell", label: "curl", source: curl }];
      // Swagger UI shows descriptions, not x-codeSamples: the example goes in both.
      op.description = `${op.description ?? ""}\n\n\`\`\`sh\n${curl}\n\`\`\``;
    }
  }
  return doc;
}

/** A curl command for an operation: placeholders for the base URL, ids and the key. */
function curlOf(method: string, path: string, op: Operation): string {
  const url = `$FORMWELL_URL${path.replace(/\{(\w+)\}/g, (_, name) => `<${name}>`)}`;
  const lines = [`curl -X ${method.toUpperCase()} "${url}"`];
  const schemes = (op.security ?? []).flatMap((s) => Object.keys(s as object));
  if (schemes.includes("bearerAuth") && op.security?.length === 1) {
    lines.push(`-H "Authorization: Bearer $FORMWELL_API_KEY"`);
  }
  if (schemes.includes("resumeToken")) lines.push(`-H "Authorization: Bearer <resume_token>"`);
  const json = op.requestBody?.content?.["application/json"];
  if (json) {
    lines.push(`-H "Content-Type: application/json"`);
    lines.push(`-d '${JSON.stringify(json.example ?? {})}'`);
  } else if (op.requestBody?.content?.["*/*"]) {
    lines.push(`-H "Authorization: Bearer <storageToken>"`);
    lines.push(`-H "Content-Type: application/pdf"`, `--data-binary @file.pdf`);
  }
  return lines.join(" \\\n  ");
}

/**
 * Rewrites the generator's nullable reference (`allOf: [{$ref}, {type: [..., "null"]}]`,
 * which no value satisfies when null) as `anyOf: [{$ref}, {type: "null"}]`, in place.
 */
function nullableRefs(node: unknown): void {
  if (!node || typeof node !== "object") return;
  const o = node as Record<string, unknown>;
  const all = o.allOf as Record<string, unknown>[] | undefined;
  if (
    Array.isArray(all) && all.length === 2 && typeof all[0].$ref === "string" &&
    Array.isArray(all[1].type) && (all[1].type as string[]).includes("null") &&
    Object.keys(all[1]).length === 1
  ) {
    delete o.allOf;
    o.anyOf = [all[0], { type: "null" }];
  }
  for (const v of Object.values(o)) nullableRefs(v);
}
