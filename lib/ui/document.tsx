/**
 * The HTML document shell every server-rendered page uses, and the renderer.
 * @module
 */
import type { ComponentChildren, VNode } from "preact";
import { renderToString } from "preact-render-to-string";

/** Renders a page body inside the shared document (one small stylesheet). */
export function renderDocument(
  { title, body, lang = "en", dir, bodyClass }: {
    title: string;
    body: VNode;
    lang?: string;
    /** `rtl` for right-to-left languages; omitted: left to right. */
    dir?: "ltr" | "rtl";
    bodyClass?: string;
  },
): string {
  return "<!DOCTYPE html>" + renderToString(
    <html lang={lang} dir={dir === "rtl" ? "rtl" : undefined}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
        <meta name="color-scheme" content="light dark" />
        <link rel="icon" href="/static/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/static/style.css" />
      </head>
      <body class={bodyClass}>{body}</body>
    </html>,
  );
}

/** A small wrapper for page content. */
export function Main({ children }: { children: ComponentChildren }) {
  return <main class="container">{children}</main>;
}
