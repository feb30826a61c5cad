/**
 * The API's one validation edge: the hook every `@hono/zod-openapi` route runs after zod
 * (a failure becomes the documented 400 body, an impossible path parameter a 404), the one
 * zod-issue formatter, the JSON body reader routes put before zod, and the id limits.
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import type { z } from "zod";
import { AppError, errors } from "@/lib/errors.ts";
import { decodeUtf8, MAX_BODY_BYTES, MAX_DEPTH, mediaType, readBody, treeFlaw } from "./body.ts";

/**
 * Longest id or path parameter the service issues (prefixed ULIDs are 30 characters, form
 * ids 13, tokens and upload file names at most 80): anything longer cannot exist.
 */
export const MAX_ID_LENGTH = 100;

/** The shape of every id and path parameter the service issues. */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;

/** Where a zod failure came from (the targets of `@hono/zod-openapi`'s validators). */
export type Target = "json" | "form" | "query" | "param" | "header" | "cookie";

/**
 * The error a zod failure answers: a path parameter that cannot be an id is the same 404 as
 * a missing resource; a query parameter or body problem is a 400 naming the first issue.
 */
export function validationError(error: z.ZodError, target: Target): AppError {
  const issue = error.issues[0];
  // A path parameter's schema names its resource in its message (lib/api/schemas.ts).
  if (target === "param") return errors.notFound(issue.message);
  const where = issue.path.map(String).join(".");
  if (target === "query") {
    return errors.badRequest(`Invalid query parameter '${where || "query"}': ${issue.message}.`);
  }
  if (issue.code === "unrecognized_keys") {
    return errors.badRequest(`Unknown parameter(s): ${issue.keys.join(", ")}.`);
  }
  return errors.badRequest(`'${where || "body"}': ${issue.message}.`);
}

/** What `@hono/zod-openapi` hands its hook (success or failure, with the raw value). */
type HookResult =
  & { target: Target; data?: unknown }
  & (
    | { success: true }
    | { success: false; error: z.ZodError }
  );

/**
 * The `defaultHook` of every API app: a JSON body must also be within the nesting limit and
 * well-formed Unicode (zod does not look inside free-form values such as `metadata`); any
 * failure is thrown as an `AppError`, which the one `onError` renders.
 */
export function validationHook(result: HookResult, _c: Context): void {
  if (result.target === "json") {
    const flaw = treeFlaw(result.data, MAX_DEPTH);
    if (flaw === "deep") {
      throw errors.badRequest(`The request body nests deeper than ${MAX_DEPTH} levels.`);
    }
    if (flaw === "unicode") {
      throw errors.badRequest(
        "The request body holds a string with invalid Unicode (a lone surrogate).",
      );
    }
  }
  if (!result.success) throw validationError(result.error, result.target);
}

/**
 * Reads a JSON request body before the route's zod validator: `Content-Type` must be
 * `application/json` or absent (a body without one is read as JSON; any other type is 415),
 * the body at most `limit` bytes and in before the request's
 * deadline, strict UTF-8 and not empty. The bytes are read here, not by Hono, because only
 * `readBody` (lib/http/body.ts) enforces the streaming cap and the body deadline; the text
 * goes to Hono's body cache, where the validator parses it, once.
 */
export function jsonBody(limit = MAX_BODY_BYTES): MiddlewareHandler {
  return async (c, next) => {
    const type = mediaType(c.req.header("content-type"));
    if (type && type !== "application/json") {
      throw errors.unsupportedMediaType(["application/json"]);
    }
    const text = decodeUtf8(await readBody(c.req.raw, limit));
    if (!text.trim()) throw errors.badRequest("The request body is empty; send a JSON object.");
    // Hono keeps the promise of each body reading in `bodyCache` (its type names the value).
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
    if (!type) {
      // The validator reads only bodies labelled JSON: label this one (its text is cached).
      const headers = new Headers(c.req.raw.headers);
      headers.set("content-type", "application/json");
      c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers });
    }
    await next();
  };
}

/** Whether a path parameter could be an id the service issued (keeps junk out of KV reads). */
export function isPlausibleId(value: string | undefined): value is string {
  return value !== undefined && ID_PATTERN.test(value);
}

/**
 * Edge guard for pages (admin, hosted): every path parameter of the matched route must have
 * the shape of an id the service issues; anything else answers `notFound(c)`, so an
 * over-long id never reaches a KV read (whose key would be too large: a 500).
 */
export function paramGuard(
  notFound: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  return async (c, next) => {
    for (const value of Object.values(c.req.param() as Record<string, string>)) {
      if (!isPlausibleId(value)) return await notFound(c);
    }
    await next();
  };
}
