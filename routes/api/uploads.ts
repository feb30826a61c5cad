/**
 * Upload routes: the upload-URL endpoint (SPEC part 4) and, for the local driver, the
 * PUT target and the signed download. Logic lives in lib/uploads/grants.ts and friends.
 * @module
 */
import { Hono } from "hono";
import { mediaType, parseJsonObject, readBody } from "@/lib/http/body.ts";
import type { Deps } from "@/lib/deps.ts";
import { originAllowed } from "@/lib/http/cors.ts";
import { errors } from "@/lib/errors.ts";
import { getForm } from "@/lib/forms/forms.ts";
import { type AppEnv, clientIp } from "@/lib/http/http.ts";
import { receiveLocalUpload, serveLocalDownload } from "@/lib/uploads/local_routes.ts";
import { createUploadGrant } from "@/lib/uploads/grants.ts";

/** The upload sub-app, mounted at `/api/v1`. */
export function uploadsApi(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post("/forms/p/:id/upload-url", async (c) => {
    const ip = clientIp(c, deps.config.trustProxy);
    if (mediaType(c.req.header("content-type")) !== "application/json") {
      throw errors.unsupportedMediaType(["application/json"]);
    }
    const raw = parseJsonObject(await readBody(c.req.raw));
    const grant = await createUploadGrant(deps, { formId: c.req.param("id"), ip }, raw);
    c.header("Cache-Control", "no-store");
    return c.json(grant);
  });

  // The storage token is the credential (no cookies), so a preflight from an origin the
  // form allows may PUT; the upload-URL call already passed the form's origin check.
  app.use("/uploads/:form/:file", async (c, next) => {
    const origin = c.req.header("origin");
    const form = origin ? await getForm(deps, c.req.param("form")) : null;
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

  app.put("/uploads/:form/:file", async (c) => {
    const path = `${c.req.param("form")}/${c.req.param("file")}`;
    return c.json(await receiveLocalUpload(deps, path, c.req.raw));
  });

  app.get("/files/:form/:file", async (c) => {
    const path = `${c.req.param("form")}/${c.req.param("file")}`;
    return await serveLocalDownload(deps, path, c.req.query("token"));
  });

  return app;
}
