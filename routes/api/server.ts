/**
 * The Server Data API (SPEC part 4), mounted at `/api/v1/server`. Every route takes a
 * secret key: the workspace and the data mode (live/test) come from the key, never from
 * the client. Routes stay thin; the queries live in lib/.
 * @module
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { formAnalytics } from "@/lib/forms/analytics.ts";
import { authenticateKey, type KeyAuth, requireScope } from "@/lib/keys/api_keys.ts";
import { mediaType, parseJsonObject, readBody } from "@/lib/http/body.ts";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { formListQuerySchema, listForms, requireOwnForm } from "@/lib/forms/query.ts";
import { formView } from "@/lib/forms/forms.ts";
import type { AppEnv } from "@/lib/http/http.ts";
import { parseQuery } from "@/lib/http/pagination.ts";
import { enforceLimit } from "@/lib/ratelimit/rate_limit.ts";
import type { Scope } from "@/lib/schemas.ts";
import { deleteSubmissions, parseDeleteBody } from "@/lib/submissions/delete.ts";
import {
  listSubmissions,
  requireSubmission,
  submissionListQuerySchema,
  submissionView,
} from "@/lib/submissions/query.ts";
import { signFileDownload } from "@/lib/uploads/files.ts";
import { webhooksApi } from "./webhooks.ts";

/** Hono env of key-authenticated routes: `c.get("auth")` is the caller. */
export type ServerEnv = {
  Variables: AppEnv["Variables"] & { auth: KeyAuth };
  Bindings: AppEnv["Bindings"];
};

/**
 * Key auth for one route: no `Authorization` is 401 `missing_api_key`; an invalid or
 * revoked key 401 `Invalid API key.`; a workspace below Starter 403 `plan_required`; a
 * key without `scope` 403 `insufficient_scope`; then one unit of the workspace's
 * per-route budget (429 `rate_limited`). Sets `c.var.auth`.
 */
export function keyAuth(
  deps: Deps,
  opts: { scope: Scope; route: string },
): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization");
    if (header === undefined || header.trim() === "") throw errors.missingApiKey();
    const auth = await authenticateKey(deps, header);
    requireScope(auth, opts.scope);
    await enforceLimit(deps, {
      route: opts.route,
      identity: `ws:${auth.workspace.id}`,
      perMinute: deps.config.rateLimits.workspace,
    });
    c.set("auth", auth);
    await next();
  };
}

/** The Server Data API sub-app, mounted at `/api/v1/server`. */
export function serverApi(deps: Deps): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  const read = (route: string) => keyAuth(deps, { scope: "read", route });
  /** The key's own form or the one 404 (the workspace comes from the key). */
  const ownForm = (c: Context<ServerEnv>) =>
    requireOwnForm(deps, c.get("auth").workspace.id, c.req.param("id") ?? "");

  app.get("/forms", read("server_forms"), async (c) => {
    const q = parseQuery(formListQuerySchema, c.req.query());
    return c.json(await listForms(deps, c.get("auth").workspace.id, q));
  });

  app.get("/forms/:id", read("server_form"), async (c) => {
    return c.json({ form: formView(await ownForm(c)) });
  });

  app.get("/forms/:id/submissions", read("server_submissions"), async (c) => {
    const form = await ownForm(c);
    const q = parseQuery(submissionListQuerySchema, c.req.query());
    return c.json(await listSubmissions(deps, form, c.get("auth").mode, q));
  });

  app.get("/forms/:id/submissions/:sid", read("server_submission"), async (c) => {
    const form = await ownForm(c);
    const s = await requireSubmission(deps, form, c.get("auth").mode, c.req.param("sid"));
    return c.json({ submission: submissionView(s) });
  });

  app.delete(
    "/forms/:id/submissions",
    keyAuth(deps, { scope: "admin", route: "server_delete" }),
    async (c) => {
      const form = await ownForm(c);
      const type = mediaType(c.req.header("content-type"));
      if (type && type !== "application/json") {
        throw errors.unsupportedMediaType(["application/json"]);
      }
      const ids = parseDeleteBody(parseJsonObject(await readBody(c.req.raw)));
      return c.json(await deleteSubmissions(deps, form, c.get("auth").mode, ids));
    },
  );

  app.get("/forms/:id/analytics", read("server_analytics"), async (c) => {
    const form = await ownForm(c);
    const { workspace, mode } = c.get("auth");
    return c.json({ analytics: await formAnalytics(deps, form, workspace, mode) });
  });

  app.get("/forms/:id/files/download", read("server_download"), async (c) => {
    const form = await ownForm(c);
    c.header("Cache-Control", "no-store");
    return c.json(await signFileDownload(deps, c.get("auth"), form.id, c.req.query("path")));
  });

  app.route("/webhooks", webhooksApi(deps, (route) => keyAuth(deps, { scope: "admin", route })));

  return app;
}
