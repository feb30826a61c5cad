/**
 * The hosted pages' conventions (Fresh-style without Fresh): each page module exports
 * `handler` ({GET}) and a default Preact component; {@linkcode htmlPage} wraps it in
 * the shared document with the hosted pages' headers.
 * @module
 */
import type { Context } from "hono";
import type { VNode } from "preact";
import type { Deps } from "@/lib/deps.ts";
import type { AppEnv } from "@/lib/http/http.ts";
import { renderDocument } from "@/lib/ui/document.tsx";

/** What a hosted page handler works with. */
export interface HostedContext {
  deps: Deps;
  c: Context<AppEnv>;
  url: URL;
  params: Record<string, string>;
}

/** A page module. */
export interface HostedPageModule {
  handler: { GET: (ctx: HostedContext) => Response | Promise<Response> };
}

/** Script hosts of the CAPTCHA providers, for the page's Content-Security-Policy. */
const CAPTCHA_SCRIPT_HOSTS = [
  "https://challenges.cloudflare.com",
  "https://js.hcaptcha.com",
  "https://*.hcaptcha.com",
  "https://www.google.com",
  "https://www.gstatic.com",
  "https://www.recaptcha.net",
].join(" ");

/**
 * An HTML response. Scripts come only from our origin and the CAPTCHA providers; pages may
 * be framed (embedding a hosted form is a use); `no-cache` (not `no-store`) lets Back show
 * the same page, with the same one-time idempotency key.
 */
export function htmlPage(
  opts: { title: string; body: VNode; status?: number; store?: boolean },
): Response {
  const html = renderDocument({ title: opts.title, body: opts.body, bodyClass: "hosted" });
  return new Response(html, {
    status: opts.status ?? 200,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": opts.store === false ? "no-store" : "private, no-cache",
      "Content-Security-Policy":
        // ALTCHA's bundle runs its proof-of-work workers from blob: URLs.
        `script-src 'self' ${CAPTCHA_SCRIPT_HOSTS}; worker-src 'self' blob:; ` +
        "object-src 'none'; base-uri 'none'",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "strict-origin-when-cross-origin",
    },
  });
}
