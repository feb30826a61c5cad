/**
 * Public analytics events (SPEC part 6): `POST /api/v1/forms/p/:id/events`, mounted at
 * `/api/v1`. 60 a minute per client IP; browser events are live data.
 * @module
 */
import { Hono } from "hono";
import { eventBodySchema, recordEvent } from "@/lib/forms/analytics.ts";
import { mediaType, parseJsonObject, readBody } from "@/lib/http/body.ts";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { requireLiveForm } from "@/lib/forms/forms.ts";
import { type AppEnv, clientIp } from "@/lib/http/http.ts";
import {
  countingRefusals,
  ipIdentity,
  type LimitSpend,
  peekLimit,
} from "@/lib/ratelimit/rate_limit.ts";

/** The events sub-app, mounted at `/api/v1`. */
export function eventsApi(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post("/forms/p/:id/events", async (c) => {
    const spend: LimitSpend = {
      route: "events",
      identity: ipIdentity(clientIp(c, deps.config.trustProxy)),
      perMinute: deps.config.rateLimits.events,
    };
    if (!(await peekLimit(deps, spend))) throw errors.rateLimited();
    // Refused attempts (unknown form, bad body) still cost the caller one unit.
    await countingRefusals(deps, () => spend, async () => {
      const { form } = await requireLiveForm(deps, c.req.param("id"));
      if (mediaType(c.req.header("content-type")) !== "application/json") {
        throw errors.unsupportedMediaType(["application/json"]);
      }
      const parsed = eventBodySchema.safeParse(parseJsonObject(await readBody(c.req.raw, 4096)));
      if (!parsed.success) {
        throw errors.badRequest(
          'Send {"type": "view" | "start", "session_id"?: string (at most 128 characters)}.',
        );
      }
      await recordEvent(deps, {
        form,
        mode: "live",
        type: parsed.data.type,
        sessionId: parsed.data.session_id,
        spend,
      });
    });
    return c.json({ success: true }, 202);
  });

  return app;
}
