/**
 * The HTTP application: middleware (docs/decisions/http-middleware.md), the API sub-apps, the
 * admin and hosted pages, the assets.
 * @module
 */
import { Hono } from "hono";
import type { Deps } from "@/lib/deps.ts";
import {
  type AppEnv,
  baselineHeaders,
  noStore,
  notFound,
  onError,
  requestId,
} from "@/lib/http/http.ts";
import { publicCors } from "@/lib/http/cors.ts";
import { bodyDeadline } from "@/lib/http/body.ts";
import { AppRouter } from "@/lib/http/router.ts";
import { landingHtml } from "@/lib/ui/plain_pages.tsx";
import { captchaApi } from "@/routes/api/captcha.ts";
import { eventsApi } from "@/routes/api/events.ts";
import { formTypesApi } from "@/routes/api/form_types.ts";
import { publicApi } from "@/routes/api/public.ts";
import { draftsApi } from "@/routes/api/drafts.ts";
import { serverApi } from "@/routes/api/server.ts";
import { serverFormsApi } from "@/routes/api/server_forms.ts";
import { privacyApi } from "@/routes/api/privacy.ts";
import { auditApi } from "@/routes/api/audit.ts";
import { feedApi } from "@/routes/api/feed.ts";
import { webhooksApi } from "@/routes/api/webhooks.ts";
import { uploadsApi } from "@/routes/api/uploads.ts";
import { postOnlyApi } from "@/routes/api/post_only.ts";
import { documentApi } from "@/routes/api/openapi.ts";
import { apiApp } from "@/lib/api/app.ts";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { docsRoutes } from "./docs.ts";
import { assetRoutes } from "./assets.ts";
import { sdkRoutes } from "./sdk.ts";
import { mcpRoutes } from "./mcp.ts";
import { schemaRoutes } from "./schemas.ts";
import { adminRoutes } from "@/routes/admin/mod.ts";
import { hostedRoutes } from "@/routes/f/mod.ts";
import { opsRoutes } from "@/routes/ops.ts";
import { accessLog, httpMetrics } from "@/lib/observe/http_metrics.ts";

/**
 * Every `/api/v1` route, each defined with its schemas (`createRoute`), on one app whose
 * registry makes the OpenAPI document. A new resource is one more `api.route(...)` here.
 */
export function v1Api(deps: Deps): OpenAPIHono<AppEnv> {
  const api = apiApp<AppEnv>();
  api.route("/api/v1", captchaApi(deps));
  api.route("/api/v1/server", serverApi(deps));
  api.route("/api/v1/server", serverFormsApi(deps));
  api.route("/api/v1/server", privacyApi(deps));
  api.route("/api/v1/server", auditApi(deps));
  api.route("/api/v1/server", feedApi(deps));
  api.route("/api/v1/server/webhooks", webhooksApi(deps));
  api.route("/api/v1", eventsApi(deps));
  api.route("/api/v1", formTypesApi(deps));
  api.route("/api/v1", publicApi(deps));
  api.route("/api/v1", draftsApi(deps));
  api.route("/api/v1", uploadsApi(deps));
  // After every real route: the other methods of the POST-only public routes.
  api.route("/api/v1", postOnlyApi());
  documentApi(api, deps.config);
  return api;
}

/** Builds the app over its dependencies (tests call this with an in-memory KV). */
export function createApp(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ router: new AppRouter() });
  // Only with METRICS_TOKEN: without it, requests pay nothing for metrics.
  if (deps.metrics && deps.config.ops.metricsToken) app.use("*", httpMetrics(deps.metrics));
  app.use("*", requestId());
  if (deps.config.ops.logRequests) app.use("*", accessLog());
  app.use("*", baselineHeaders(deps.config));
  // Every body must arrive in time; readers (lib/http/body.ts) enforce it while streaming.
  app.use("*", bodyDeadline(deps.config.bodyTimeoutMs));
  app.onError(onError);
  app.notFound(notFound);
  app.get("/healthz", (c) => c.json({ ok: true }));
  app.route("/", opsRoutes(deps));
  app.get("/", (c) => landingHtml(deps.config, new URL(c.req.url)));
  // Before every public route: preflights, origin grants and foreign-origin refusals. Per-form
  // CORS stays middleware, outside the route definitions: its answer depends on the form's
  // allowed origins (a KV read), and preflights have no route of their own.
  app.use("/api/v1/forms/p/*", publicCors(deps));
  app.use("/api/v1/submit/p/*", publicCors(deps));
  app.use("/api/v1/server/*", noStore());
  app.route("/", v1Api(deps));
  app.route("/", docsRoutes(deps.config));
  app.route("/", assetRoutes());
  app.route("/", sdkRoutes());
  app.route("/", mcpRoutes(deps));
  app.route("/", schemaRoutes());
  app.route("/admin", adminRoutes(deps));
  app.route("/", hostedRoutes(deps));
  return app;
}
