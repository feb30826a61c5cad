/**
 * Public analytics events (SPEC part 6): `POST /api/v1/forms/p/:id/events`, mounted at
 * `/api/v1`. 60 a minute per client IP; browser events are live data.
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { eventBodySchema, recordEvent } from "@/lib/forms/analytics.ts";
import type { Deps } from "@/lib/deps.ts";
import { apiApp, PUBLIC } from "@/lib/api/app.ts";
import { errorResponses, formIdParams, jsonRequest, jsonResponse } from "@/lib/api/schemas.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { requireLiveForm } from "@/lib/forms/forms.ts";
import { type AppEnv, clientIp } from "@/lib/http/http.ts";
import { jsonBody } from "@/lib/http/validation.ts";
import {
  ipIdentity,
  type LimitSpend,
  peekLimit,
  spendQuietly,
} from "@/lib/ratelimit/rate_limit.ts";

/** Most bytes of an event body. */
const MAX_EVENT_BYTES = 4096;

const eventRoute = createRoute({
  method: "post",
  path: "/forms/p/{id}/events",
  operationId: "recordFormEvent",
  tags: ["Public"],
  security: PUBLIC,
  summary: "Record a view or start",
  description: "Counts a form view or a first interaction for the form's analytics. With a " +
    "`session_id`, a session counts once per form and day. A `view` may carry `step`, the " +
    "1-based position of the step shown on a form with steps: it counts that step reached. " +
    "60 a minute per client IP.",
  request: {
    params: formIdParams,
    body: jsonRequest(eventBodySchema, { type: "view" }),
  },
  responses: {
    202: jsonResponse("Accepted.", z.object({ success: z.literal(true) })),
    ...errorResponses(400, 403, 404, 405, 413, 415, 429),
  },
});

/** The event's rate-limit spend: the caller's IP identity. */
function spendOf(deps: Deps, c: Parameters<MiddlewareHandler<AppEnv>>[0]): LimitSpend {
  return {
    route: "events",
    identity: ipIdentity(clientIp(c, deps.config.trustProxy)),
    perMinute: deps.config.rateLimits.events,
  };
}

/**
 * 429 once the caller's budget is spent; a refused attempt (unknown form, bad body: any
 * error the rest of the route answers) still costs one unit. A counted event pays in
 * recordEvent's own commit.
 */
function eventLimit(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!(await peekLimit(deps, spendOf(deps, c)))) throw errors.rateLimited();
    await next();
    const err = c.error;
    const refused = err instanceof AppError
      ? err.status !== 429
      : err instanceof HTTPException && err.status < 500;
    if (refused) {
      await spendQuietly(deps, spendOf(deps, c));
    }
  };
}

/** The events sub-app, mounted at `/api/v1`. */
export function eventsApi(deps: Deps): OpenAPIHono<AppEnv> {
  const app = apiApp<AppEnv>();

  app.openapi(
    { ...eventRoute, middleware: [eventLimit(deps), jsonBody(MAX_EVENT_BYTES)] },
    async (c) => {
      const { form } = await requireLiveForm(deps, c.req.valid("param").id);
      const body = c.req.valid("json");
      await recordEvent(deps, {
        form,
        mode: "live",
        type: body.type,
        sessionId: body.session_id,
        step: body.step,
        spend: spendOf(deps, c),
      });
      return c.json({ success: true as const }, 202);
    },
  );

  return app;
}
