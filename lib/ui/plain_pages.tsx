/**
 * The pages a browser gets outside any form or the admin: the landing page at `/`, the
 * HTML 404 of unknown non-API paths (the API keeps its JSON 404) and the HTML 405 of a
 * POST-only API address opened in a browser.
 * @module
 */
import type { VNode } from "preact";
import type { Config } from "@/lib/config.ts";
import { hostedCsp } from "./csp.ts";
import { renderDocument } from "./document.tsx";

/** Whether a request is a browser navigation outside the API (it then gets HTML, not JSON). */
export function wantsHtmlPage(req: Request): boolean {
  const path = new URL(req.url).pathname;
  if (path === "/api" || path.startsWith("/api/")) return false;
  return /\btext\/html\b/i.test(req.headers.get("accept") ?? "");
}

function htmlResponse(title: string, body: VNode, status: number): Response {
  return new Response(renderDocument({ title, body, bodyClass: "hosted" }), {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-cache",
      "Content-Security-Policy": hostedCsp(null, null),
      "X-Content-Type-Options": "nosniff",
    },
  });
}

/** The HTML 404: says what happened and where to go, with a link home. */
export function notFoundHtml(): Response {
  return htmlResponse(
    "Page not found · Formwell",
    <main class="container hosted-page">
      <h1>Page not found</h1>
      <p>There is nothing at this address. Check the link you were given.</p>
      <p>
        <a href="/">Go to the start page</a>
      </p>
    </main>,
    404,
  );
}

/**
 * The HTML 405 of a POST-only API address opened in a browser: what the address is for
 * (`message`), and a link to the API reference.
 */
export function methodNotAllowedHtml(message: string): Response {
  return htmlResponse(
    "Not a page · Formwell",
    <main class="container hosted-page">
      <h1>This address is not a page</h1>
      <p>{message}</p>
      <p>
        <a href="/docs/api">Open the API reference</a>
      </p>
    </main>,
    405,
  );
}

/**
 * The landing page at `/`: what this server is; a sign-in link only where the admin lives
 * (not on a separate `PUBLIC_BASE_URL` host, where the admin does not exist).
 */
export function landingHtml(config: Pick<Config, "baseUrl" | "publicBaseUrl">, url: URL): Response {
  const adminHost = new URL(config.baseUrl).host;
  const publicHost = new URL(config.publicBaseUrl).host;
  const showAdmin = adminHost === publicHost || url.host !== publicHost;
  return htmlResponse(
    "Formwell",
    <main class="container hosted-page landing">
      <h1>Formwell</h1>
      <p>
        This server collects responses to online forms. If you were sent a link to a form, open that
        link to fill it in.
      </p>
      {showAdmin && (
        <p>
          Own a form here? <a href="/admin/login">Sign in</a> to see its responses.
        </p>
      )}
      <p class="powered muted">Powered by Formwell, a self-hosted form backend</p>
    </main>,
    200,
  );
}
