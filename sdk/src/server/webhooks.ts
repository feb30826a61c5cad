/**
 * `fw.webhooks`: the workspace's webhook endpoints (`admin` scope): list, create, read,
 * update, delete, rotate the secret, send a test event, the delivery log and resends.
 * @module
 */
import type {
  PageQuery,
  Pagination,
  Webhook,
  WebhookCreate,
  WebhookDelivery,
  WebhookUpdate,
  WebhookWithSecret,
} from "../types.ts";
import { type Caller, lister, type Query } from "./resources.ts";

const BASE = "/api/v1/server/webhooks";

function at(...parts: string[]): string {
  return BASE + parts.map((p) => `/${encodeURIComponent(p)}`).join("");
}

/** A test event or a resend, queued for delivery. */
export interface QueuedEvent {
  queued: true;
  event_id: string;
}

/** `fw.webhooks`. */
export function webhooksApi(call: Caller) {
  const page = (query: PageQuery = {}) =>
    call<{ webhooks: Webhook[]; pagination: Pagination }>({
      path: BASE,
      query: query as Query,
    });
  const deliveriesPage = (id: string, query: PageQuery = {}) =>
    call<{ deliveries: WebhookDelivery[]; pagination: Pagination }>({
      path: at(id, "deliveries"),
      query: query as Query,
    });
  const one = (r: { webhook: Webhook }) => r.webhook;
  return {
    page,
    list: lister<Webhook, PageQuery>(page, "webhooks"),
    /** Creates an endpoint; its `secret` is returned only here (and by `rotate`). */
    create: (input: WebhookCreate) =>
      call<{ webhook: WebhookWithSecret }>({
        method: "POST",
        path: BASE,
        body: input,
      })
        .then((r) => r.webhook),
    get: (id: string) => call<{ webhook: Webhook }>({ path: at(id) }).then(one),
    update: (id: string, patch: WebhookUpdate) =>
      call<{ webhook: Webhook }>({ method: "PATCH", path: at(id), body: patch })
        .then(one),
    delete: (id: string) =>
      call<{ deleted: boolean; id: string }>({
        method: "DELETE",
        path: at(id),
      }),
    /** A new secret; the previous one keeps signing alongside for 24 hours. */
    rotate: (id: string) =>
      call<{ webhook: WebhookWithSecret }>({
        method: "POST",
        path: at(id, "rotate"),
      })
        .then((r) => r.webhook),
    test: (id: string) => call<QueuedEvent>({ method: "POST", path: at(id, "test") }),
    deliveriesPage,
    deliveries: (id: string, query: Omit<PageQuery, "page"> = {}) =>
      lister<WebhookDelivery, PageQuery>(
        (q) => deliveriesPage(id, q),
        "deliveries",
      )(query),
    resend: (id: string, deliveryId: string) =>
      call<QueuedEvent>({
        method: "POST",
        path: at(id, "deliveries", deliveryId, "resend"),
      }),
  };
}
