/**
 * The API reference: `GET /docs/api`, Swagger UI (npm `swagger-ui-dist`) rendering
 * `/api/v1/openapi.json`, its files served from node_modules under `/docs/api/assets/`
 * with the admin's strict CSP (our origin only, no inline code; see
 * docs/decisions/api-reference.md).
 * @module
 */
import { Hono } from "hono";
import type { Config } from "@/lib/config.ts";
import { type AppEnv, strictPageHeaders } from "@/lib/http/http.ts";
import { errors } from "@/lib/errors.ts";

const DIST = new URL("../node_modules/swagger-ui-dist/", import.meta.url);

/** The renderer's files we serve, with their types; `init.js` is ours (below). */
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
};

/**
 * Starts Swagger UI on the document; a file, since the CSP allows no inline script. No
 * deep links (an anchor inside each operation's button is nested interaction for screen
 * readers), no validator badge (it would call validator.swagger.io); once rendered, the
 * headings get their missing level, the server menu its name, the parts outside the
 * renderer's <main> their landmarks.
 */
const INIT_JS = `window.addEventListener("load", () => {
  window.ui = SwaggerUIBundle({
    url: "/api/v1/openapi.json",
    dom_id: "#reference",
    deepLinking: false,
    validatorUrl: null,
    tryItOutEnabled: false,
    defaultModelsExpandDepth: 0,
    onComplete() {
      const ops = document.getElementById("operations");
      if (ops && !document.getElementById("operations-heading")) {
        const h = document.createElement("h2");
        h.id = "operations-heading";
        h.className = "operations-heading";
        h.textContent = "Operations";
        ops.prepend(h);
      }
      document.getElementById("servers")?.setAttribute("aria-label", "Server");
      // Landmarks around what the renderer leaves outside its own <main>.
      document.querySelector(".information-container")?.setAttribute("role", "banner");
      const servers = document.querySelector(".schemes-server-container");
      servers?.setAttribute("role", "region");
      servers?.setAttribute("aria-label", "Servers");
    },
  });
});
`;

/** Contrast fixes for the renderer's light colours (axe color-contrast at WCAG AA). */
const FIXES_CSS =
  `.swagger-ui .opblock-tag small, .swagger-ui .opblock .opblock-summary-description,
.swagger-ui .info .base-url, .swagger-ui .info .url, .swagger-ui .info a.url,
.swagger-ui .parameter__in, .swagger-ui .response-col_links,
.swagger-ui .opblock-description-wrapper p, .swagger-ui table thead tr th,
.swagger-ui .model-title, .swagger-ui table.headers .header-example { color: #3b4151; }
.swagger-ui .info .title small, .swagger-ui .info .title small.version-stamp { background: #3d6b00; }
.swagger-ui .btn.authorize { color: #1b6b43; border-color: #1b6b43; }
.swagger-ui .btn.authorize svg { fill: #1b6b43; }
.swagger-ui .opblock .opblock-summary-method { color: #fff; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #0b5cad; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1b6b43; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4b00; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0d6b5e; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b3261e; }
.operations-heading { font-family: sans-serif; color: #3b4151; margin: 24px auto 0;
  max-width: 1460px; padding: 0 20px; box-sizing: border-box; }
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Formwell</title>
<link rel="stylesheet" href="/docs/api/assets/swagger-ui.css">
<link rel="stylesheet" href="/docs/api/assets/fixes.css">
<script src="/docs/api/assets/swagger-ui-bundle.js" defer></script>
<script src="/docs/api/assets/init.js" defer></script>
</head>
<body>
<div id="reference"><noscript><p>The reference needs JavaScript; the document itself is at
<a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p></noscript></div>
</body>
</html>
`;

const cache = new Map<string, Promise<Uint8Array>>();

/** The reference page and its assets. */
export function docsRoutes(config: Pick<Config, "baseUrl" | "publicBaseUrl">): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("/docs/api/*", strictPageHeaders(config));
  app.get("/docs/api", (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.html(PAGE);
  });
  app.get("/docs/api/assets/:file", async (c) => {
    const name = c.req.param("file");
    c.header("Cache-Control", "public, max-age=86400");
    if (name === "init.js") {
      return c.body(INIT_JS, 200, { "Content-Type": ASSETS["swagger-ui-bundle.js"] });
    }
    if (name === "fixes.css") {
      return c.body(FIXES_CSS, 200, { "Content-Type": ASSETS["swagger-ui.css"] });
    }
    const type = ASSETS[name];
    if (!type) throw errors.notFound();
    let body = cache.get(name);
    if (!body) cache.set(name, body = Deno.readFile(new URL(name, DIST)));
    try {
      return c.body((await body) as Uint8Array<ArrayBuffer>, 200, { "Content-Type": type });
    } catch {
      cache.delete(name);
      throw errors.notFound();
    }
  });
  return app;
}
