/**
 * The other methods of the POST-only public routes (submit, validate, events, upload-url,
 * drafts): `405 method_not_allowed` with `Allow: POST` and a body saying what the route
 * takes, JSON or, for a browser that opened the address, an HTML page. A `404` there would
 * read like a wrong form id. One `all` handler per route, registered after the real ones;
 * each route's declaration lists the 405 (lib/api/schemas.ts).
 * @module
 */
import { type Context, Hono } from "hono";
import type { AppEnv } from "@/lib/http/http.ts";
import { methodNotAllowedHtml } from "@/lib/ui/plain_pages.tsx";

/** A POST-only public route: its path (under `/api/v1`) and what it takes. */
interface PostOnly {
  path: string;
  takes: string;
}

const ROUTES: PostOnly[] = [
  {
    path: "/submit/p/:id",
    takes: "a form submission: JSON {data}, or an HTML form post (urlencoded or multipart)",
  },
  {
    path: "/forms/p/:id/validate",
    takes: "JSON {data} to check against the form without storing it",
  },
  {
    path: "/forms/p/:id/events",
    takes: 'JSON {type: "view" | "start"} for the form\'s analytics',
  },
  {
    path: "/forms/p/:id/upload-url",
    takes: "JSON {fieldId, fileName, contentType, sizeBytes} to get a signed upload URL",
  },
  {
    path: "/forms/p/:id/drafts",
    takes: "JSON {data} to save a draft of the form",
  },
];

/** The message of a 405: the method, what the route takes, where the reference is. */
function messageOf(method: string, takes: string): string {
  return `${method} is not allowed here. This address takes POST requests with ${takes}. ` +
    "The API reference is at /docs/api.";
}

/** The 405 answer: JSON, or HTML for a browser navigation; `Allow: POST` on both. */
function answer(c: Context<AppEnv>, takes: string): Response {
  const message = messageOf(c.req.method, takes);
  const res = /\btext\/html\b/i.test(c.req.header("accept") ?? "")
    ? methodNotAllowedHtml(message)
    : c.json({ error: message, code: "method_not_allowed" }, 405);
  res.headers.set("Allow", "POST");
  return res;
}

/** The 405 routes of every POST-only public route, mounted at `/api/v1` after them. */
export function postOnlyApi(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // The form id is not read: a wrong method is the answer whatever the form.
  for (const r of ROUTES) app.all(r.path, (c) => answer(c, r.takes));
  return app;
}
