/**
 * CORS and the origin allowlist for the public endpoints (`/forms/p/:id...`,
 * `/submit/p/:id`, Formspree's `POST /f/:id`). A successful answer grants only an allowed
 * origin (echoed, never `*`, so `Vary: Origin` keeps caches honest). Refusals (status >= 400) and preflights grant the
 * requesting origin whatever it is, so a page on a foreign origin can read the
 * `403 origin_not_allowed` (or any refusal) instead of a network error that looks like
 * being offline; a foreign or `null` origin's POSTs are refused before they store or count
 * anything (submit: by lib/protection/gates.ts). A request without `Origin` is not a
 * cross-origin browser request (servers, curl) and passes.
 * @module
 */
import type { Config } from "@/lib/config.ts";
import type { MiddlewareHandler } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { errors } from "@/lib/errors.ts";
import { requireLiveForm } from "@/lib/forms/forms.ts";
import type { AppEnv } from "./http.ts";
import type { Form } from "@/lib/schemas.ts";

/**
 * Request headers a browser may send to the public endpoints (Formspree's clients add
 * theirs on its endpoint path, `/f/:id`).
 */
const ALLOWED_HEADERS = [
  "content-type",
  "idempotency-key",
  "x-request-id",
  "formspree-client",
  "formspree-session-data",
];
/** Response headers a browser script may read. */
const EXPOSED_HEADERS = "X-Request-Id, Idempotent-Replayed, ETag";
/** Browsers may cache a preflight this long (seconds). */
const PREFLIGHT_MAX_AGE = "600";

/**
 * Whether `origin` may use the form: never `null`; the service's own origins (`BASE_URL`
 * and `PUBLIC_BASE_URL`, where hosted pages live) always; any origin when the list is empty.
 */
export function originAllowed(
  form: Pick<Form, "allowed_origins">,
  origin: string,
  config: Pick<Config, "baseUrl" | "publicBaseUrl">,
): boolean {
  if (origin === "null" || !/^https?:\/\/[^/]+$/i.test(origin)) return false;
  const normalised = origin.toLowerCase();
  if (ownOrigins(config).includes(normalised)) return true;
  // Stored origins are normalised (lower-case, no trailing slash), as browsers send them.
  return !form.allowed_origins.length || form.allowed_origins.includes(normalised);
}

const own = new WeakMap<object, string[]>();

/** The origins of `BASE_URL` and `PUBLIC_BASE_URL`, parsed once per configuration. */
function ownOrigins(config: Pick<Config, "baseUrl" | "publicBaseUrl">): string[] {
  let origins = own.get(config);
  if (!origins) {
    origins = [new URL(config.baseUrl).origin, new URL(config.publicBaseUrl).origin];
    own.set(config, origins);
  }
  return origins;
}

/** The public id in a public path, or null. */
function publicIdOf(path: string): string | null {
  return /\/(?:forms|submit)\/p\/([^/]+)|^\/f\/([^/]+)$/.exec(path)?.slice(1).find(Boolean) ?? null;
}

/** CORS for the public endpoints: preflight, `Vary: Origin`, echo, refusal of foreign POSTs. */
export function publicCors(
  deps: Pick<Deps, "reads" | "formWorkspaces" | "config">,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const origin = c.req.header("origin");
    const preflight = c.req.method === "OPTIONS" &&
      c.req.header("access-control-request-method") !== undefined;
    if (origin === undefined) {
      if (preflight) return withVary(c.body(null, 204));
      await next();
      withVary(c.res);
      return;
    }
    const id = publicIdOf(c.req.path);
    // An unknown form, or one of a suspended workspace, grants nothing and refuses nothing:
    // the route itself answers the same 404 for both.
    const liveForm = () =>
      id ? requireLiveForm(deps, id).then((t) => t.form, () => null) : Promise.resolve(null);
    if (preflight) {
      // Any origin may send the request: a foreign one is then refused with a readable
      // 403, which is why the preflight needs no form read.
      const res = c.body(null, 204);
      grant(res.headers, origin);
      // Drafts are saved with PUT and carry their resume token (never an API key) in
      // Authorization; no other public route takes either from a browser.
      const drafts = c.req.path.includes("/drafts");
      res.headers.set(
        "Access-Control-Allow-Methods",
        drafts ? "GET, POST, PUT, OPTIONS" : "GET, POST, OPTIONS",
      );
      const takes = drafts ? [...ALLOWED_HEADERS, "authorization"] : ALLOWED_HEADERS;
      const asked = (c.req.header("access-control-request-headers") ?? "")
        .split(",").map((h) => h.trim().toLowerCase())
        .filter((h) => takes.includes(h));
      if (asked.length) res.headers.set("Access-Control-Allow-Headers", asked.join(", "));
      res.headers.set("Access-Control-Max-Age", PREFLIGHT_MAX_AGE);
      return withVary(res);
    }
    if (c.req.path.includes("/submit/p/") || c.req.path.startsWith("/f/")) {
      // Submit reads the form itself and refuses foreign origins (lib/protection/gates.ts, after
      // key auth, so the no-JS path answers in its own format): the grant comes from that
      // same read, or from one here when the request failed before it.
      await next();
      if (c.res.status >= 400) grant(c.res.headers, origin);
      else {
        const form = c.get("submitForm") ?? await liveForm();
        if (form && originAllowed(form, origin, deps.config)) grant(c.res.headers, origin);
      }
      withVary(c.res);
      return;
    }
    const form = await liveForm();
    const allowed = form ? originAllowed(form, origin, deps.config) : false;
    // Every public write but submit (above) is refused here.
    if (form && !allowed && c.req.method !== "GET" && c.req.method !== "HEAD") {
      const res = c.json(errors.originNotAllowed().toBody(), 403);
      grant(res.headers, origin);
      return withVary(res);
    }
    await next();
    if (allowed || c.res.status >= 400) grant(c.res.headers, origin);
    withVary(c.res);
  };
}

function grant(headers: Headers, origin: string): void {
  headers.set("Access-Control-Allow-Origin", origin);
  headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
}

function withVary(res: Response): Response {
  const vary = res.headers.get("vary");
  if (!vary) res.headers.set("Vary", "Origin");
  else if (!/\borigin\b/i.test(vary)) res.headers.set("Vary", `${vary}, Origin`);
  return res;
}
