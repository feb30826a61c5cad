/**
 * Webhook endpoints on the Server Data API (`admin` scope), mounted at
 * `/api/v1/server/webhooks`: list, create, read, update, delete, deliveries, rotate,
 * test and resend. The workspace and the mode come from the key: a key sees and creates
 * only endpoints of its own mode (another mode's are 404). Changes are audited.
 * @module
 */
import { type Context, Hono } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { mediaType, parseJsonObject, readBody } from "@/lib/http/body.ts";
import { pageQuerySchema, pagination, parseQuery } from "@/lib/http/pagination.ts";
import { clientIp } from "@/lib/http/http.ts";
import { listDeliveries } from "@/lib/notify/deliver.ts";
import { resendDelivery, sendTestEvent } from "@/lib/notify/manual.ts";
import {
  createWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  updateWebhook,
  type WebhookActor,
} from "@/lib/notify/webhook_edits.ts";
import { listWebhooks, requireWebhook, webhookView } from "@/lib/notify/webhooks.ts";
import { keyActor, keyAuth, type ServerEnv } from "./_key_auth.ts";

async function jsonBody(req: Request): Promise<Record<string, unknown>> {
  const type = mediaType(req.headers.get("content-type") ?? undefined);
  if (type && type !== "application/json") throw errors.unsupportedMediaType(["application/json"]);
  return parseJsonObject(await readBody(req));
}

function page<T>(items: T[], q: { page: number; limit: number }) {
  const start = (q.page - 1) * q.limit;
  return {
    items: items.slice(start, start + q.limit),
    pagination: pagination(q.page, q.limit, items.length),
  };
}

/** The webhooks sub-app, mounted at `/api/v1/server/webhooks` (every route: admin scope). */
export function webhooksApi(deps: Deps): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  const admin = (route: string) => keyAuth(deps, { scope: "admin", route });
  type C = Context<ServerEnv>;
  const ws = (c: C) => c.get("auth").workspace.id;
  const mode = (c: C) => c.get("auth").mode;
  const by = (c: C): WebhookActor => ({
    actor: keyActor(c.get("auth")),
    ip: clientIp(c, deps.config.trustProxy),
    mode: mode(c),
  });

  app.get("/", admin("server_webhooks"), async (c) => {
    const q = parseQuery(pageQuerySchema, c.req.query());
    const hooks = await listWebhooks(deps, ws(c), mode(c));
    const { items, pagination } = page(hooks.map(webhookView), q);
    return c.json({ webhooks: items, pagination });
  });

  app.post("/", admin("server_webhooks"), async (c) => {
    const webhook = await createWebhook(deps, ws(c), await jsonBody(c.req.raw), by(c));
    c.header("Cache-Control", "no-store");
    return c.json({ webhook }, 201);
  });

  app.get("/:wid", admin("server_webhook"), async (c) => {
    const w = await requireWebhook(deps, ws(c), c.req.param("wid"), mode(c));
    return c.json({ webhook: webhookView(w.value) });
  });

  app.patch("/:wid", admin("server_webhook"), async (c) => {
    const body = await jsonBody(c.req.raw);
    return c.json({ webhook: await updateWebhook(deps, ws(c), c.req.param("wid"), body, by(c)) });
  });

  app.delete("/:wid", admin("server_webhook"), async (c) => {
    return c.json(await deleteWebhook(deps, ws(c), c.req.param("wid"), by(c)));
  });

  app.post("/:wid/rotate", admin("server_webhook"), async (c) => {
    c.header("Cache-Control", "no-store");
    return c.json({ webhook: await rotateWebhookSecret(deps, ws(c), c.req.param("wid"), by(c)) });
  });

  app.post("/:wid/test", admin("server_webhook"), async (c) => {
    return c.json(await sendTestEvent(deps, ws(c), c.req.param("wid"), by(c)), 202);
  });

  app.get("/:wid/deliveries", admin("server_webhook"), async (c) => {
    const q = parseQuery(pageQuerySchema, c.req.query());
    const w = await requireWebhook(deps, ws(c), c.req.param("wid"), mode(c));
    const { items, pagination } = page(await listDeliveries(deps, w.value.id), q);
    return c.json({ deliveries: items, pagination });
  });

  app.post("/:wid/deliveries/:did/resend", admin("server_webhook"), async (c) => {
    const { wid, did } = c.req.param();
    return c.json(await resendDelivery(deps, ws(c), wid, did, mode(c)), 202);
  });

  return app;
}
