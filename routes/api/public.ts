/**
 * Public endpoints (no credential): schema, submit, validate. SPEC part 4.
 * @module
 */
import { Hono } from "hono";
import { authenticateKey } from "@/lib/keys/api_keys.ts";
import { mediaType, parseJsonObject, readBody } from "@/lib/http/body.ts";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { publicSchema, requireLiveForm } from "@/lib/forms/forms.ts";
import { type AppEnv, clientIp, limitByClientIp } from "@/lib/http/http.ts";
import { parseIdempotencyKey } from "@/lib/submissions/idempotency.ts";
import { ipIdentity } from "@/lib/ratelimit/rate_limit.ts";
import {
  checkStoredSize,
  countingRefusals,
  parseSubmitBody,
  submit,
  type SubmitContext,
  submitSpend,
} from "@/lib/submissions/submit.ts";
import { validateData } from "@/lib/forms/validator.ts";
import { handleFormPost } from "./_form_post.ts";

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
    const ip = clientIp(c, deps.config.trustProxy);
    const identity = ipIdentity(ip);
    // Refusals before submit() (bad key, bad header, wrong type, bad body) count against
    // the caller's limit too; submit() counts its own.
    return await countingRefusals(deps, submitSpend(deps, { auth: null, identity }), async () => {
      const authorization = c.req.header("authorization");
      const ctx: SubmitContext = {
        formId: c.req.param("id"),
        // submit() reads the key's workspace along with the form, and checks it.
        auth: authorization !== undefined
          ? await authenticateKey(deps, authorization, { callerChecksWorkspace: true })
          : null,
        ip,
        identity,
        origin: c.req.header("origin") ?? null,
        userAgent: c.req.header("user-agent") ?? null,
        idempotencyKey: parseIdempotencyKey(c.req.header("idempotency-key")),
        source: "json",
        onForm: (form) => c.set("submitForm", form),
      };
      const type = mediaType(c.req.header("content-type"));
      if (type === "application/x-www-form-urlencoded" || type === "multipart/form-data") {
        return await handleFormPost(deps, c, ctx, type);
      }
      if (type !== "application/json") {
        throw errors.unsupportedMediaType([
          "application/json",
          "application/x-www-form-urlencoded",
          "multipart/form-data",
        ]);
      }
      const body = parseSubmitBody(parseJsonObject(await readBody(c.req.raw)));
      const outcome = await submit(deps, ctx, body);
      if (outcome.replayed) c.header("Idempotent-Replayed", "true");
      return c.json(outcome.body, 201);
    });
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
