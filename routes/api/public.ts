/**
 * Public endpoints (no credential): schema, submit, validate. SPEC part 4.
 * @module
 */
import { Hono } from "hono";
import { mediaType, parseJsonObject, readBody } from "@/lib/http/body.ts";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { publicSchema, requireLiveForm } from "@/lib/forms/forms.ts";
import { type AppEnv, clientIp, limitByClientIp } from "@/lib/http/http.ts";
import { checkStoredSize, parseSubmitBody } from "@/lib/submissions/parse.ts";
import { submitRequest } from "@/lib/submissions/submit.ts";
import { validateData } from "@/lib/forms/validator.ts";
import { answerFormPost } from "./_form_post.ts";

/** The public API sub-app, mounted at `/api/v1`. */
export function publicApi(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/forms/p/:id", async (c) => {
    await limitByClientIp(deps, c, "schema");
    const { form } = await requireLiveForm(deps, c.req.param("id"));
    const body = publicSchema(form);
    const etag = `"v${form.schema_version}-${Date.parse(form.updated_at).toString(36)}"`;
    c.header("ETag", etag);
    c.header("Cache-Control", "no-cache");
    if (c.req.header("if-none-match") === etag) return c.body(null, 304);
    return c.json(body);
  });

  app.post("/submit/p/:id", async (c) => {
    const answer = await submitRequest(deps, {
      formId: c.req.param("id"),
      request: c.req.raw,
      ip: clientIp(c, deps.config.trustProxy),
      onForm: (form) => c.set("submitForm", form),
    });
    if (answer.kind !== "json") return answerFormPost(deps, c, answer);
    if (answer.outcome.replayed) c.header("Idempotent-Replayed", "true");
    return c.json(answer.outcome.body, 201);
  });

  app.post("/forms/p/:id/validate", async (c) => {
    await limitByClientIp(deps, c, "validate");
    const { form } = await requireLiveForm(deps, c.req.param("id"));
    if (mediaType(c.req.header("content-type")) !== "application/json") {
      throw errors.unsupportedMediaType(["application/json"]);
    }
    const body = parseSubmitBody(parseJsonObject(await readBody(c.req.raw)));
    if (body.schema_version !== undefined && body.schema_version !== form.schema_version) {
      throw errors.schemaChanged(form.schema_version);
    }
    const result = validateData(form, body.data, "json");
    if (result.errors.length) throw errors.validation(result.errors);
    checkStoredSize(result.values, body.metadata ?? {});
    return c.json({ valid: true });
  });

  return app;
}
