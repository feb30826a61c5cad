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

/** Security of a key-authenticated route: the API key as a bearer token (`bearerAuth`). */
export const BEARER: Record<string, string[]>[] = [{ bearerAuth: [] }];

/** Security of a public route: no credential. */
export const PUBLIC: Record<string, string[]>[] = [];

/** Security of submit: no credential from a page, or an API key from a server. */
export const OPTIONAL_BEARER: Record<string, string[]>[] = [{}, { bearerAuth: [] }];

/** Security of a draft's routes: its resume token as a bearer token (`resumeToken`). */
export const RESUME_TOKEN: Record<string, string[]>[] = [{ resumeToken: [] }];

/** Security of the local upload target: the grant's `storageToken` as a bearer token. */
export const STORAGE_TOKEN: Record<string, string[]>[] = [{ storageToken: [] }];
