/**
 * Checks real API answers against the documented ones: the zod response schema the route
 * definition declares for the answer's status (the schemas the OpenAPI document is
 * generated from). A status the route does not document fails too.
 * @module
 */
import type { RouteConfig } from "@hono/zod-openapi";
import type { z } from "zod";
import type { Deps } from "@/lib/deps.ts";
import { v1Api } from "@/routes/mod.ts";

type Documented = { method: string; pattern: RegExp; path: string; route: RouteConfig };

let routes: Documented[] | null = null;

/** Every documented route, with a pattern matching its concrete paths. */
export function documentedRoutes(deps: Deps): Documented[] {
  routes ??= v1Api(deps).openAPIRegistry.definitions.flatMap((d) =>
    d.type === "route"
      ? [{
        method: d.route.method.toUpperCase(),
        path: d.route.path,
        pattern: new RegExp(`^${d.route.path.replace(/\{\w+\}/g, "[^/]+").replace(/\./g, "\\.")}$`),
        route: d.route,
      }]
      : []
  );
  return routes;
}

/**
 * Asserts that `res` (the answer to `method path`) is documented: its status is listed
 * and a JSON body parses with the schema declared for it. Returns the body.
 */
export async function assertDocumented(
  deps: Deps,
  method: string,
  path: string,
  res: Response,
): Promise<unknown> {
  const bare = path.split("?")[0];
  const found = documentedRoutes(deps).filter((r) => r.method === method && r.pattern.test(bare));
  // A literal path wins over a template that also matches it.
  const def = found.sort((a, b) => a.path.split("{").length - b.path.split("{").length)[0];
  if (!def) throw new Error(`${method} ${path}: no documented route`);
  const doc = def.route.responses[res.status];
  if (!doc) throw new Error(`${method} ${def.path}: status ${res.status} is not documented`);
  const type = res.headers.get("content-type") ?? "";
  if (!type.includes("application/json")) return null;
  const body = await res.clone().json();
  const content = (doc as { content?: Record<string, { schema?: unknown }> }).content;
  const schema = content?.["application/json"]?.schema as z.ZodType | undefined;
  if (!schema) throw new Error(`${method} ${def.path} ${res.status}: JSON body, none documented`);
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new Error(
      `${method} ${def.path} ${res.status}: body differs from the documented schema: ` +
        `${JSON.stringify(parsed.error.issues.slice(0, 3))} in ${
          JSON.stringify(body).slice(0, 300)
        }`,
    );
  }
  return body;
}
