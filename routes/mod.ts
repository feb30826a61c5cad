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
import { landingHtml } from "@/lib/ui/plain_pages.tsx";
import { captchaApi } from "@/routes/api/captcha.ts";
import { eventsApi } from "@/routes/api/events.ts";
import { formTypesApi } from "@/routes/api/form_types.ts";
import { publicApi } from "@/routes/api/public.ts";
import { serverApi } from "@/routes/api/server.ts";
import { privacyApi } from "@/routes/api/privacy.ts";
import { auditApi } from "@/routes/api/audit.ts";
import { feedApi } from "@/routes/api/feed.ts";
import { webhooksApi } from "@/routes/api/webhooks.ts";
import { uploadsApi } from "@/routes/api/uploads.ts";
import { assetRoutes } from "./assets.ts";
import { sdkRoutes } from "./sdk.ts";
import { adminRoutes } from "@/routes/admin/mod.ts";
import { hostedRoutes } from "@/routes/f/mod.ts";
import { opsRoutes } from "@/routes/ops.ts";
import { accessLog, httpMetrics } from "@/lib/observe/http_metrics.ts";

/** Builds the app over its dependencies (tests call this with an in-memory KV). */
export function createApp(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Only with METRICS_TOKEN: without it, requests pay nothing for metrics.
  if (deps.metrics) app.use("*", httpMetrics(deps.metrics));
  app.use("*", requestId());
  if (deps.config.ops.logRequests) app.use("*", accessLog());
  app.use("*", baselineHeaders(deps.config));
  app.use("*", bodyDeadline(deps.config.bodyTimeoutMs));
  app.onError(onError);
  app.notFound(notFound);
  app.get("/healthz", (c) => c.json({ ok: true }));
  app.route("/", opsRoutes(deps));
  app.get("/", (c) => landingHtml(deps.config, new URL(c.req.url)));
  // Before every public route: preflights, origin grants and foreign-origin refusals.
  app.use("/api/v1/forms/p/*", publicCors(deps));
  app.use("/api/v1/submit/p/*", publicCors(deps));
  app.use("/api/v1/server/*", noStore());
  app.route("/api/v1", captchaApi(deps));
  app.route("/api/v1/server", serverApi(deps));
  app.route("/api/v1/server", privacyApi(deps));
  app.route("/api/v1/server", auditApi(deps));
  app.route("/api/v1/server", feedApi(deps));
  app.route("/api/v1/server/webhooks", webhooksApi(deps));
  app.route("/api/v1", eventsApi(deps));
  app.route("/api/v1", formTypesApi(deps));
  app.route("/api/v1", publicApi(deps));
  app.route("/api/v1", uploadsApi(deps));
  app.route("/", assetRoutes());
  app.route("/", sdkRoutes());
  app.route("/admin", adminRoutes(deps));
  app.route("/", hostedRoutes(deps));
  return app;
}
