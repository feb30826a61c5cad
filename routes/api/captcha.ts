/**
 * The ALTCHA challenge endpoint (self-hosted proof of work; the widget's `challengeurl`):
 * GET `/api/v1/forms/p/:id/altcha-challenge`, rate limited per client IP.
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { createAltchaChallenge } from "@/lib/protection/altcha.ts";
import type { Deps } from "@/lib/deps.ts";
import { apiApp, PUBLIC } from "@/lib/api/app.ts";
import { errorResponses, formIdParams, jsonResponse } from "@/lib/api/schemas.ts";
import { errors } from "@/lib/errors.ts";
import { requireLiveForm } from "@/lib/forms/forms.ts";
import { type AppEnv, limitByClientIp } from "@/lib/http/http.ts";

const challengeRoute = createRoute({
  method: "get",
  path: "/forms/p/{id}/altcha-challenge",
  operationId: "getAltchaChallenge",
  tags: ["Public"],
  security: PUBLIC,
  summary: "Get an ALTCHA challenge",
  description: "A proof-of-work challenge for a form protected by ALTCHA (the widget's " +
    "`challengeurl`). 404 when the form uses another CAPTCHA or none.",
  request: { params: formIdParams },
  responses: {
    200: jsonResponse(
      "The challenge the widget solves.",
      z.looseObject({ parameters: z.looseObject({ algorithm: z.string() }) })
        .openapi("AltchaChallenge"),
    ),
    ...errorResponses(404, 429),
  },
});

/** The CAPTCHA sub-app, mounted at `/api/v1`. */
export function captchaApi(deps: Deps): OpenAPIHono<AppEnv> {
  const app = apiApp<AppEnv>();

  app.openapi(challengeRoute, async (c) => {
    await limitByClientIp(deps, c, "challenge");
    const { form } = await requireLiveForm(deps, c.req.valid("param").id);
    if (form.captcha?.provider !== "altcha") {
      throw errors.notFound("This form does not use ALTCHA.");
    }
    c.header("Cache-Control", "no-store");
    return c.json(await createAltchaChallenge(deps, form), 200);
  });

  return app;
}
