/**
 * Server Data API, the event feed (`read` scope): every event a webhook could carry, of the
 * key's mode, in commit order, after an opaque cursor (lib/feed). Mounted by routes/mod.ts.
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Deps } from "@/lib/deps.ts";
import { apiApp, BEARER } from "@/lib/api/app.ts";
import { errorResponses, jsonResponse, KEY_ERRORS, submissionSchema } from "@/lib/api/schemas.ts";
import { MAX_CURSOR_LENGTH } from "@/lib/feed/cursor.ts";
import { readFeed } from "@/lib/feed/read.ts";
import { EVENT_TYPES, type EventType } from "@/lib/notify/events.ts";
import { keyAuth, type ServerEnv } from "./_key_auth.ts";

/** The feed's query: `after` (cursor), `limit` 1..100 (default 50), `types` (comma list). */
const feedQuerySchema = z.object({
  after: z.string().min(1).max(MAX_CURSOR_LENGTH).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  types: z.string().max(500).optional().transform((v, ctx) => {
    if (v === undefined || v.trim() === "") return undefined;
    const list = [...new Set(v.split(",").map((t) => t.trim()).filter(Boolean))];
    const unknown = list.find((t) => !(EVENT_TYPES as readonly string[]).includes(t));
    if (unknown !== undefined) {
      ctx.addIssue({
        code: "custom",
        message: `unknown event type '${unknown}' (one of ${EVENT_TYPES.join(", ")})`,
      });
      return z.NEVER;
    }
    return list as EventType[];
  }).meta({ description: `Comma-separated event types: ${EVENT_TYPES.join(", ")}.` }),
});

/** One event of the feed. */
const feedEventSchema = z.object({
  id: z.string(),
  type: z.enum(EVENT_TYPES),
  created_at: z.string(),
  data: z.object({
    form: z.object({ public_id: z.string(), name: z.string() }),
    submission: submissionSchema.nullable(),
    previous_status: z.string().optional(),
  }),
}).openapi("FeedEvent");

const feedRoute = createRoute({
  method: "get",
  path: "/events",
  operationId: "listEvents",
  tags: ["Events"],
  security: BEARER,
  summary: "Read the event feed",
  description: "Every event a webhook could carry (of the key's mode), oldest first, after " +
    "the `after` cursor; keep `next_cursor` and ask again. Scope `read`.",
  request: { query: feedQuerySchema },
  responses: {
    200: jsonResponse(
      "A page of events.",
      z.object({
        events: z.array(feedEventSchema),
        next_cursor: z.string(),
        has_more: z.boolean(),
      }),
    ),
    ...errorResponses(400, ...KEY_ERRORS),
  },
});

/** The feed route, mounted under `/api/v1/server`. */
export function feedApi(deps: Deps): OpenAPIHono<ServerEnv> {
  const app = apiApp<ServerEnv>();
  const auth = keyAuth(deps, { scope: "read", route: "server_events" });
  app.openapi({ ...feedRoute, middleware: [auth] }, async (c) => {
    const key = c.get("auth");
    c.header("Cache-Control", "no-store");
    const q = c.req.valid("query");
    return c.json(
      await readFeed(deps, { workspaceId: key.workspace.id, mode: key.mode, ...q }),
      200,
    );
  });
  return app;
}
