/**
 * `POST /mcp`: the Model Context Protocol server (Streamable HTTP, stateless, JSON answers)
 * through the official SDK's web-standard transport. An API key authenticates every request
 * (`401` with `WWW-Authenticate: Bearer` without a valid one); the key decides the tools,
 * the workspace and the data mode (lib/mcp/server.ts).
 * @module
 */
import { Hono } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { decodeUtf8, mediaType, readBody } from "@/lib/http/body.ts";
import { type AppEnv, clientIp } from "@/lib/http/http.ts";
import { authenticateKey, requireScope } from "@/lib/keys/auth.ts";
import type { KeyAuth } from "@/lib/keys/types.ts";
import { FORMWELL_VERSION } from "@/lib/ops/version.ts";
import { enforceLimit } from "@/lib/ratelimit/rate_limit.ts";

/** The JSON-RPC error answer of a request the transport never sees. */
function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

/**
 * The MCP SDK (about 30 MB resident) loads with the first `/mcp` request, so a server whose
 * keys never use MCP does not carry it.
 */
let mcp: Promise<typeof import("@/lib/mcp/answer.ts")> | null = null;
function loadMcp(): Promise<typeof import("@/lib/mcp/answer.ts")> {
  return mcp ??= import("@/lib/mcp/answer.ts");
}

/** Whether a JSON-RPC body is one `tools/call` request. */
function isToolCall(body: unknown): boolean {
  return (body as { method?: unknown } | null)?.method === "tools/call";
}

/** The MCP endpoint's routes. */
export function mcpRoutes(deps: Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post("/mcp", async (c) => {
    c.header("Cache-Control", "no-store");
    const header = c.req.header("authorization");
    let auth: KeyAuth;
    try {
      if (header === undefined || header.trim() === "") throw errors.missingApiKey();
      auth = await authenticateKey(deps, header);
    } catch (err) {
      if (err instanceof AppError && err.status === 401) {
        c.header(
          "WWW-Authenticate",
          err.code === "missing_api_key" ? "Bearer" : 'Bearer error="invalid_token"',
        );
      }
      throw err;
    }
    // Without `read` (or `admin`) a key has no tool, as on every Server Data API route.
    requireScope(auth, "read");
    const type = mediaType(c.req.header("content-type"));
    if (type !== "application/json") throw errors.unsupportedMediaType(["application/json"]);
    let body: unknown;
    try {
      body = JSON.parse(decodeUtf8(await readBody(c.req.raw)));
    } catch (err) {
      if (err instanceof AppError && err.status !== 400) throw err;
      return rpcError(400, -32700, "Parse error: the body is not JSON.");
    }
    // A tool call spends the budget of the API route it mirrors (lib/mcp/server.ts); the
    // protocol's other messages spend the endpoint's own.
    if (!isToolCall(body)) {
      await enforceLimit(deps, {
        route: "mcp",
        identity: `ws:${auth.workspace.id}`,
        perMinute: deps.config.rateLimits.workspace,
      });
    }
    const { answerMcp } = await loadMcp();
    const caller = { auth, ip: clientIp(c, deps.config.trustProxy) };
    return await answerMcp(deps, caller, FORMWELL_VERSION, c.req.raw, body);
  });

  // Stateless: no server-to-client stream and no session to end.
  app.on(["GET", "DELETE"], "/mcp", (c) => {
    c.header("Allow", "POST");
    return c.json({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Method not allowed: this MCP server takes POST only." },
      id: null,
    }, 405);
  });

  return app;
}
