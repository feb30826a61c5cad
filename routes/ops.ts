/**
 * Operations endpoints: `GET /readyz` and, with `METRICS_TOKEN`, `GET /metrics`
 * (Prometheus text to `Authorization: Bearer <token>`, else the ordinary 404).
 * @module
 */
import { Hono } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { type AppEnv, notFound } from "@/lib/http/http.ts";
import { bearerMatches } from "@/lib/observe/http_metrics.ts";
import { readiness } from "@/lib/observe/ready.ts";

/** `/readyz` and `/metrics`. */
export function opsRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/readyz", async (c) => {
    const r = await readiness(deps);
    c.header("Cache-Control", "no-store");
    return c.json(r, r.ok ? 200 : 503);
  });
  const { metrics } = deps;
  const token = deps.config.ops.metricsToken;
  app.get("/metrics", async (c) => {
    if (!metrics || !token || !bearerMatches(c.req.header("authorization"), token)) {
      return notFound(c);
    }
    return c.body(await metrics.text(), 200, {
      "Content-Type": metrics.contentType,
      "Cache-Control": "no-store",
    });
  });
  return app;
}
