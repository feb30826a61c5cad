/**
 * Answers one MCP request with a fresh stateless server on the official SDK's web-standard
 * Streamable HTTP transport (JSON answers, no session).
 * @module
 */
// @deno-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Deps } from "@/lib/deps.ts";
import { mcpServerFor } from "./server.ts";
import type { ToolCaller } from "./types.ts";

/** The transport's answer to `request` (whose JSON body is `body`) for `caller`. */
export async function answerMcp(
  deps: Deps,
  caller: ToolCaller,
  version: string,
  request: Request,
  body: unknown,
): Promise<Response> {
  const server = mcpServerFor(deps, caller, version);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    await server.close();
  }
}
