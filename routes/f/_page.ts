/**
 * The hosted pages' context, `define`, and document: each page module exports
 * `handler = define.handlers({...})` and `default = define.page<typeof handler>(...)`
 * (lib/ui/define.ts); {@linkcode htmlPage} wraps a body with the hosted pages' headers.
 * @module
 */
import type { Context } from "hono";
import type { VNode } from "preact";
import type { Deps } from "@/lib/deps.ts";
import type { AppEnv } from "@/lib/http/http.ts";
import type { Form } from "@/lib/schemas.ts";
import { type CspConfig, hostedCsp } from "@/lib/ui/csp.ts";
import { createDefine, type Define, type PageModule } from "@/lib/ui/define.ts";
import { renderDocument } from "@/lib/ui/document.tsx";
import { isRtl } from "@/lib/rules/mod.ts";

/** What a hosted page handler works with. */
export interface HostedContext {
  deps: Deps;
  c: Context<AppEnv>;
  url: URL;
  params: Record<string, string>;
}

/** Hosted page components receive only their `data`. */
export type HostedProps = Record<never, never>;

/** The hosted pages' `define.handlers` / `define.page`. */
export const define: Define<HostedContext, HostedProps> = createDefine<
  HostedContext,
  HostedProps
>();

/** A hosted page module. */
export type HostedPageModule<T> = PageModule<HostedContext, T, HostedProps>;

/** The form-specific headers of a page showing `form`: its CSP allows its CAPTCHA only. */
export function formPageHeaders(form: Form, config: CspConfig): Record<string, string> {
  return { "Content-Security-Policy": hostedCsp(form, config) };
}

/**
 * An HTML response. The default CSP allows our origin only and no form posts (pages with a
 * form pass {@linkcode formPageHeaders}); pages may be framed (embedding a hosted form is a
 * use); `no-cache` (not `no-store`) lets Back show the same page with the same one-time key.
 */
export function htmlPage(
  opts: {
    title: string;
    body: VNode;
    status?: number;
    store?: boolean;
    headers?: Record<string, string>;
    /** The page's language; `dir="rtl"` follows for right-to-left ones. */
    lang?: string;
  },
): Response {
  const lang = opts.lang ?? "en";
  const html = renderDocument({
    title: opts.title,
    body: opts.body,
    bodyClass: "hosted",
    lang,
    dir: isRtl(lang) ? "rtl" : "ltr",
  });
  return new Response(html, {
    status: opts.status ?? 200,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": opts.store === false ? "no-store" : "private, no-cache",
      "Content-Security-Policy": hostedCsp(null, null),
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "strict-origin-when-cross-origin",
      ...opts.headers,
    },
  });
}
