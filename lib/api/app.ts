/**
 * How an `/api/v1` sub-app is made: an `OpenAPIHono` whose `defaultHook` is the one
 * validation hook (lib/http/validation.ts), so every route defined with `createRoute`
 * validates its params, query and body the same way and lands in the OpenAPI document.
 * @module
 */
import { type Hook, OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "hono";
import { validationHook } from "@/lib/http/validation.ts";

/** A new API sub-app over env `E`, validating through the one hook. */
export function apiApp<E extends Env>(): OpenAPIHono<E> {
  // deno-lint-ignore no-explicit-any
  return new OpenAPIHono<E>({ defaultHook: validationHook as Hook<any, E, any, any> });
}

/** Security requirement of a key-authenticated route (the `bearer` scheme). */
export const BEARER = [{ bearer: [] }];
