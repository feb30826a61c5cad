/**
 * The app's router: Hono's RegExpRouter (one precompiled match, nothing allocated per
 * request) for every path outside `/admin`, and Hono's TrieRouter for the admin pages, whose
 * `/admin/forms/new` beside `/admin/forms/:id` RegExpRouter cannot hold. A route that can
 * match paths on both sides (`*` middleware) is added to both, in the order it came.
 * @module
 */
import type { Result, Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { TrieRouter } from "hono/router/trie-router";

/** Whether a request path is an admin page's. */
function isAdminPath(path: string): boolean {
  return path === "/admin" || path.startsWith("/admin/");
}

/** Whether a route pattern can match paths on both sides: it starts with a wildcard or param. */
function spansBoth(pattern: string): boolean {
  return /^\/?[*:]/.test(pattern);
}

/** RegExpRouter for the API and pages, TrieRouter for `/admin`. */
export class AppRouter<T> implements Router<T> {
  readonly name = "AppRouter";
  readonly site: Router<T> = new RegExpRouter<T>();
  readonly admin: Router<T> = new TrieRouter<T>();

  add(method: string, path: string, handler: T): void {
    const both = spansBoth(path);
    if (both || isAdminPath(path)) this.admin.add(method, path, handler);
    if (both || !isAdminPath(path)) this.site.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    return (isAdminPath(path) ? this.admin : this.site).match(method, path);
  }
}
