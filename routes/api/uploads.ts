/**
 * Upload routes: the upload-URL endpoint (SPEC part 4) and, for the local driver, the
 * PUT target and the signed download. Logic lives in lib/uploads/grants.ts and friends.
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Deps } from "@/lib/deps.ts";
import { apiApp, PUBLIC, STORAGE_TOKEN } from "@/lib/api/app.ts";
import {
  errorResponses,
  formIdParams,
  idParam,
  jsonRequest,
  jsonResponse,
  uploadGrantSchema,
} from "@/lib/api/schemas.ts";
import { originAllowed } from "@/lib/http/cors.ts";
import { getForm } from "@/lib/forms/forms.ts";
import { type AppEnv, clientIp, limitedByClientIp } from "@/lib/http/http.ts";
import { isPlausibleId, jsonBody } from "@/lib/http/validation.ts";
import { receiveLocalUpload, serveLocalDownload } from "@/lib/uploads/local_routes.ts";
import { createUploadGrant, uploadUrlBodySchema } from "@/lib/uploads/grants.ts";

const TAG = ["Uploads"];
const fileParams = z.object({
  form: idParam("form", "fAbC123xYz456", "File not found or link expired."),
  file: idParam("file", "01jd8y5x2n3k4m5p6q7r8s9t0vAbCdEf", "File not found or link expired."),
});

const uploadUrlRoute = createRoute({
  method: "post",
  path: "/forms/p/{id}/upload-url",
  operationId: "createUploadUrl",
  tags: TAG,
  security: PUBLIC,
  summary: "Get a signed upload URL",
  description: "Step one of a file upload: declares the file (field, name, type, size) and " +
    "gets a short-lived URL to `PUT` it to, with `Authorization: Bearer <storageToken>` when " +
    'given; then submit `{"path": <path>}` as the field\'s value (optionally with ' +
    "`originalFilename`, `mimeType` and `sizeBytes`; no other key). 10 a minute per client IP.",
  request: {
    params: formIdParams,
    body: jsonRequest(uploadUrlBodySchema, {
      fieldId: "resume",
      fileName: "cv.pdf",
      contentType: "application/pdf",
      sizeBytes: 48213,
    }),
  },
  responses: {
    200: jsonResponse("Where to PUT the file.", uploadGrantSchema),
    ...errorResponses(400, 403, 404, 405, 413, 415, 422, 423, 429),
  },
});

const putRoute = createRoute({
  method: "put",
  path: "/uploads/{form}/{file}",
  operationId: "uploadFile",
  tags: TAG,
  security: STORAGE_TOKEN,
  summary: "Upload a file (local storage)",
  description: "Step two with the local storage driver: the file's bytes, with the signed " +
    "Content-Type and Content-Length and `Authorization: Bearer <storageToken>`.",
  request: {
    params: fileParams,
    body: {
      required: true,
      description: "The file's bytes, sent with the `contentType` and `sizeBytes` the upload " +
        "URL was granted for as `Content-Type` and `Content-Length` (another type is 403).",
      content: { "*/*": { schema: { type: "string", format: "binary" } } },
    },
  },
  responses: {
    200: jsonResponse(
      "Stored and verified.",
      z.object({ path: z.string(), mimeType: z.string(), sizeBytes: z.number().int() }),
    ),
    ...errorResponses(401, 403, 404, 408, 409, 411, 413, 422, 503),
  },
});

const downloadRoute = createRoute({
  method: "get",
  path: "/files/{form}/{file}",
  operationId: "downloadFile",
  tags: TAG,
  security: PUBLIC,
  summary: "Download a file (local storage)",
  description: "A signed download link as `GET /server/forms/{id}/files/download` returns it.",
  request: {
    params: fileParams,
    query: z.object({ token: z.string().max(2000).optional() }),
  },
  responses: {
    200: {
      description: "The file, as an attachment, with the type it was stored with as " +
        "`Content-Type` (the type its upload declared and its content matched).",
      content: { "*/*": { schema: { type: "string", format: "binary" } } },
    },
    ...errorResponses(404),
  },
});

/** The upload sub-app, mounted at `/api/v1`. */
export function uploadsApi(deps: Deps): OpenAPIHono<AppEnv> {
  const app = apiApp<AppEnv>();

  app.openapi(
    { ...uploadUrlRoute, middleware: [limitedByClientIp(deps, "upload_url"), jsonBody()] },
    async (c) => {
      const ip = clientIp(c, deps.config.trustProxy);
      const formId = c.req.valid("param").id;
      const grant = await createUploadGrant(deps, { formId, ip }, c.req.valid("json"));
      c.header("Cache-Control", "no-store");
      return c.json(grant, 200);
    },
  );

  // The storage token is the credential (no cookies), so a preflight from an origin the
  // form allows may PUT; the upload-URL call already passed the form's origin check.
  app.use("/uploads/:form/:file", async (c, next) => {
    const origin = c.req.header("origin");
    const id = c.req.param("form");
    const form = origin && isPlausibleId(id) ? await getForm(deps, id) : null;
    const allowed = origin && form ? originAllowed(form, origin, deps.config) : false;
    if (c.req.method === "OPTIONS") {
      const res = c.body(null, 204);
      if (allowed) {
        res.headers.set("Access-Control-Allow-Origin", origin!);
        res.headers.set("Access-Control-Allow-Methods", "PUT, OPTIONS");
        res.headers.set("Access-Control-Allow-Headers", "authorization, content-type");
        res.headers.set("Access-Control-Max-Age", "600");
      }
      res.headers.set("Vary", "Origin");
      return res;
    }
    await next();
    if (allowed) c.res.headers.set("Access-Control-Allow-Origin", origin!);
    c.res.headers.set("Vary", "Origin");
  });

  // The body is the file's bytes, streamed to storage under its own deadline
  // (lib/uploads/local_routes.ts); its schema is not zod, so no validator reads it.
  app.openapi(putRoute, async (c) => {
    const { form, file } = c.req.valid("param");
    return c.json(await receiveLocalUpload(deps, `${form}/${file}`, c.req.raw), 200);
  });

  app.openapi(downloadRoute, async (c) => {
    const { form, file } = c.req.valid("param");
    return await serveLocalDownload(deps, `${form}/${file}`, c.req.valid("query").token);
  });

  return app;
}
