/**
 * The ALTCHA challenge endpoint (self-hosted proof of work; the widget's `challengeurl`):
 * GET `/api/v1/forms/p/:id/altcha-challenge`, rate limited per client IP.
 * @module
 */
import { Hono } from "hono";
import { createAltchaChallenge } from "@/lib/protection/altcha.ts";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { requireLiveForm } from "@/lib/forms/forms.ts";
import { type AppEnv, limitByClientIp } from "@/lib/http/http.ts";

/** The CAPTCHA sub-app, mounted at `/api/v1`. */
export function captchaApi(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/forms/p/:id/altcha-challenge", async (c) => {
    await limitByClientIp(deps, c, "challenge");
    const { form } = await requireLiveForm(deps, c.req.param("id"));
    if (form.captcha?.provider !== "altcha") {
      throw errors.notFound("This form does not use ALTCHA.");
    }
    c.header("Cache-Control", "no-store");
    return c.json(await createAltchaChallenge(deps, form));
  });

  return app;
}
