/**
 * Webhook endpoints on the Server Data API (`admin` scope), mounted at
 * `/api/v1/server/webhooks`: list, create, read, update, delete, deliveries, rotate,
 * test and resend. The workspace and the mode come from the key: a key sees and creates
 * only endpoints of its own mode (another mode's are 404). Changes are audited.
 * @module
 */
import { createRoute, type OpenAPIHono, type RouteConfig, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { apiApp, BEARER } from "@/lib/api/app.ts";
import {
  deliverySchema,
  errorResponses,
  idParam,
  jsonRequest,
  jsonResponse,
  KEY_ERRORS,
  paginationSchema,
  queuedSchema,
  webhookSchema,
  webhookWithSecretSchema,
} from "@/lib/api/schemas.ts";
import { pageQuerySchema, pagination } from "@/lib/http/pagination.ts";
import { clientIp } from "@/lib/http/http.ts";
import { jsonBody } from "@/lib/http/validation.ts";
import { listDeliveries } from "@/lib/notify/deliver.ts";
import { resendDelivery, sendTestEvent } from "@/lib/notify/manual.ts";
import {
  createWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  updateWebhook,
  type WebhookActor,
  webhookCreateSchema,
  webhookUpdateSchema,
} from "@/lib/notify/webhook_edits.ts";
import { listWebhooks, requireWebhook, webhookView } from "@/lib/notify/webhooks.ts";
import { keyActor, keyAuth, type ServerEnv } from "./_key_auth.ts";

const WID_EXAMPLE = "whk_01jd8y5x2n3k4m5p6q7r8s9t0v";
const widParams = z.object({ wid: idParam("wid", WID_EXAMPLE, "Webhook not found.") });
const didParams = widParams.extend({
  did: idParam("did", "dlv_01jd8y5x2n3k4m5p6q7r8s9t0v", "Delivery not found."),
});

/** A webhook route: tag, bearer security, `admin` scope, the key errors. */
function route<R extends Omit<RouteConfig, "tags" | "security">>(r: R) {
  const errs = errorResponses(...KEY_ERRORS);
  return createRoute({
    ...r,
    tags: ["Webhooks"],
    security: BEARER,
    responses: { ...errs, ...r.responses },
    description: `${r.description} Scope \`admin\`; only endpoints of the key's mode.`,
  });
}

const listRoute = route({
  method: "get",
  path: "/",
  operationId: "listWebhooks",
  summary: "List webhook endpoints",
  description: "The workspace's endpoints, paginated.",
  request: { query: pageQuerySchema },
  responses: {
    200: jsonResponse(
      "A page of endpoints.",
      z.object({ webhooks: z.array(webhookSchema), pagination: paginationSchema }),
    ),
    ...errorResponses(400),
  },
});

const createRouteDef = route({
  method: "post",
  path: "/",
  operationId: "createWebhook",
  summary: "Create a webhook endpoint",
  description: "Adds an endpoint receiving signed events (Standard Webhooks). The answer " +
    "holds its `whsec_` secret, shown only here and on rotate. Audited.",
  request: {
    body: jsonRequest(webhookCreateSchema, {
      url: "https://example.com/hooks/formwell",
      events: ["submission.created"],
    }),
  },
  responses: {
    201: jsonResponse(
      "The endpoint with its secret.",
      z.object({ webhook: webhookWithSecretSchema }),
    ),
    ...errorResponses(400, 413, 415),
  },
});

const getRoute = route({
  method: "get",
  path: "/{wid}",
  operationId: "getWebhook",
  summary: "Get a webhook endpoint",
  description: "One endpoint (never its secret).",
  request: { params: widParams },
  responses: { 200: jsonResponse("The endpoint.", z.object({ webhook: webhookSchema })) },
});

const updateRoute = route({
  method: "patch",
  path: "/{wid}",
  operationId: "updateWebhook",
  summary: "Update a webhook endpoint",
  description: "Changes its URL, events, forms or `enabled`. Audited.",
  request: { params: widParams, body: jsonRequest(webhookUpdateSchema, { enabled: false }) },
  responses: {
    200: jsonResponse("The endpoint.", z.object({ webhook: webhookSchema })),
    ...errorResponses(400, 413, 415),
  },
});

const deleteRoute = route({
  method: "delete",
  path: "/{wid}",
  operationId: "deleteWebhook",
  summary: "Delete a webhook endpoint",
  description: "Removes the endpoint and its delivery log. Audited.",
  request: { params: widParams },
  responses: {
    200: jsonResponse("Deleted.", z.object({ deleted: z.literal(true), id: z.string() })),
  },
});

const rotateRoute = route({
  method: "post",
  path: "/{wid}/rotate",
  operationId: "rotateWebhookSecret",
  summary: "Rotate a webhook secret",
  description: "A new signing secret; the previous one keeps signing alongside for 24 hours. " +
    "Audited.",
  request: { params: widParams },
  responses: {
    200: jsonResponse(
      "The endpoint with its new secret.",
      z.object({ webhook: webhookWithSecretSchema }),
    ),
    ...errorResponses(400),
  },
});

const testRoute = route({
  method: "post",
  path: "/{wid}/test",
  operationId: "sendWebhookTest",
  summary: "Send a test event",
  description: "Queues a `webhook.test` event to the endpoint. Audited.",
  request: { params: widParams },
  responses: { 202: jsonResponse("Queued.", queuedSchema) },
});

const deliveriesRoute = route({
  method: "get",
  path: "/{wid}/deliveries",
  operationId: "listWebhookDeliveries",
  summary: "List deliveries",
  description: "The endpoint's recent delivery attempts, newest first, paginated.",
  request: { params: widParams, query: pageQuerySchema },
  responses: {
    200: jsonResponse(
      "A page of deliveries.",
      z.object({ deliveries: z.array(deliverySchema), pagination: paginationSchema }),
    ),
    ...errorResponses(400),
  },
});

const resendRoute = route({
  method: "post",
  path: "/{wid}/deliveries/{did}/resend",
  operationId: "resendWebhookDelivery",
  summary: "Resend a delivery",
  description: "Queues the delivery's event to the endpoint again (404 once its submission " +
    "was erased).",
  request: { params: didParams },
  responses: { 202: jsonResponse("Queued.", queuedSchema) },
});

function page<T>(items: T[], q: { page: number; limit: number }) {
  const start = (q.page - 1) * q.limit;
  return {
    items: items.slice(start, start + q.limit),
    pagination: pagination(q.page, q.limit, items.length),
  };
}

/** The webhooks sub-app, mounted at `/api/v1/server/webhooks` (every route: admin scope). */
export function webhooksApi(deps: Deps): OpenAPIHono<ServerEnv> {
  const app = apiApp<ServerEnv>();
  const one = [keyAuth(deps, { scope: "admin", route: "server_webhook" })];
  const many = [keyAuth(deps, { scope: "admin", route: "server_webhooks" })];
  type C = Context<ServerEnv>;
  const ws = (c: C) => c.get("auth").workspace.id;
  const mode = (c: C) => c.get("auth").mode;
  const by = (c: C): WebhookActor => ({
    actor: keyActor(c.get("auth")),
    ip: clientIp(c, deps.config.trustProxy),
    mode: mode(c),
  });

  app.openapi({ ...listRoute, middleware: many }, async (c) => {
    const hooks = await listWebhooks(deps, ws(c), mode(c));
    const { items, pagination } = page(hooks.map(webhookView), c.req.valid("query"));
    return c.json({ webhooks: items, pagination }, 200);
  });

  app.openapi({ ...createRouteDef, middleware: [...many, jsonBody()] }, async (c) => {
    const webhook = await createWebhook(deps, ws(c), c.req.valid("json"), by(c));
    c.header("Cache-Control", "no-store");
    return c.json({ webhook }, 201);
  });

  app.openapi({ ...getRoute, middleware: one }, async (c) => {
    const w = await requireWebhook(deps, ws(c), c.req.valid("param").wid, mode(c));
    return c.json({ webhook: webhookView(w.value) }, 200);
  });

  app.openapi({ ...updateRoute, middleware: [...one, jsonBody()] }, async (c) => {
    const { wid } = c.req.valid("param");
    const webhook = await updateWebhook(deps, ws(c), wid, c.req.valid("json"), by(c));
    return c.json({ webhook }, 200);
  });

  app.openapi({ ...deleteRoute, middleware: one }, async (c) => {
    return c.json(await deleteWebhook(deps, ws(c), c.req.valid("param").wid, by(c)), 200);
  });

  app.openapi({ ...rotateRoute, middleware: one }, async (c) => {
    c.header("Cache-Control", "no-store");
    const webhook = await rotateWebhookSecret(deps, ws(c), c.req.valid("param").wid, by(c));
    return c.json({ webhook }, 200);
  });

  app.openapi({ ...testRoute, middleware: one }, async (c) => {
    return c.json(await sendTestEvent(deps, ws(c), c.req.valid("param").wid, by(c)), 202);
  });

  app.openapi({ ...deliveriesRoute, middleware: one }, async (c) => {
    const w = await requireWebhook(deps, ws(c), c.req.valid("param").wid, mode(c));
    const q = c.req.valid("query");
    const { items, pagination } = page(await listDeliveries(deps, w.value.id), q);
    return c.json({ deliveries: items, pagination }, 200);
  });

  app.openapi({ ...resendRoute, middleware: one }, async (c) => {
    const { wid, did } = c.req.valid("param");
    return c.json(await resendDelivery(deps, ws(c), wid, did, mode(c)), 202);
  });

  return app;
}
