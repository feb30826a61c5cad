/**
 * The HTTP application: middleware, the API sub-apps and the admin pages.
 * @module
 */
import { Hono } from "hono";
import type { Deps } from "../lib/deps.ts";
import { type AppEnv, notFound, onError, requestId } from "../lib/http.ts";
import { publicApi } from "./api/public.ts";
import { assetRoutes } from "./assets.ts";

/** Builds the app over its dependencies (tests call this with an in-memory KV). */
export function createApp(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requestId());
  app.onError(onError);
  app.notFound(notFound);
  app.get("/healthz", (c) => c.json({ ok: true }));
  app.route("/api/v1", publicApi(deps));
  app.route("/", assetRoutes());
  return app;
}
