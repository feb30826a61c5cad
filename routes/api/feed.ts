/**
 * Server Data API, the event feed (`read` scope): every event a webhook could carry, of the
 * key's mode, in commit order, after an opaque cursor (lib/feed). Mounted by routes/mod.ts.
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import type { Deps } from "@/lib/deps.ts";
import { MAX_CURSOR_LENGTH } from "@/lib/feed/cursor.ts";
import { readFeed } from "@/lib/feed/read.ts";
import { parseQuery } from "@/lib/http/pagination.ts";
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
  }),
});

/** The feed route, mounted under `/api/v1/server`. */
export function feedApi(deps: Deps): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  app.get("/events", keyAuth(deps, { scope: "read", route: "server_events" }), async (c) => {
    const q = parseQuery(feedQuerySchema, c.req.query());
    const auth = c.get("auth");
    c.header("Cache-Control", "no-store");
    return c.json(
      await readFeed(deps, { workspaceId: auth.workspace.id, mode: auth.mode, ...q }),
    );
  });
  return app;
}
