/**
 * The `mcp list_submissions` row: `tools/call list_submissions` (100 a page, page 1) through
 * `POST /mcp` on the big list form, one connection, as the SDK's client sends it (stateless
 * server: no session). The target is p50 under 30 ms.
 * @module
 */
import type { Row, Verdict } from "./report.ts";
import type { WrkRequest, WrkResult } from "./wrk.ts";

/** The p50 target of the row, in ms. */
export const MCP_LIST_P50_MS = 30;

/** One `tools/call` of list_submissions on `formId` as the request wrk repeats. */
export function mcpListRequest(formId: string, key: string): WrkRequest {
  return {
    method: "POST",
    path: "/mcp",
    headers: {
      Authorization: `Bearer ${key}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2025-06-18",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "list_submissions", arguments: { form_id: formId, limit: 100 } },
    }),
  };
}

/** Whether one call answers a page of submissions (not a tool error); else why not. */
async function probe(url: string, req: WrkRequest): Promise<string | null> {
  try {
    const res = await fetch(`${url}${req.path}`, {
      method: req.method,
      headers: req.headers,
      body: req.body,
    });
    const body = await res.json().catch(() => null);
    if (!res.ok) return `n/a (${res.status})`;
    if (body?.result?.isError || !body?.result?.structuredContent?.submissions) {
      return "n/a (list_submissions answered no page)";
    }
    return null;
  } catch (err) {
    return `n/a (${(err as Error).message})`;
  }
}

/** Measures the row with `run` (one connection); returns the row and its verdict. */
export async function mcpListRow(o: {
  url: string;
  formId: string;
  key: string;
  stored: number;
  seconds: number;
  run: (
    url: string,
    req: WrkRequest,
    opts: { seconds: number; connections: number; tag: string },
  ) => Promise<WrkResult>;
}): Promise<{ row: Row; verdict: Verdict }> {
  const name = `mcp list_submissions, 100 a page (${o.stored} stored)`;
  const target = `mcp list_submissions p50 < ${MCP_LIST_P50_MS} ms (${o.stored} stored)`;
  const req = mcpListRequest(o.formId, o.key);
  const why = await probe(o.url, req);
  if (why) return { row: { name, skipped: why }, verdict: { target, measured: why, pass: null } };
  await o.run(o.url, req, { seconds: 1, connections: 1, tag: "mw" });
  const result = await o.run(o.url, req, { seconds: o.seconds, connections: 1, tag: "m" });
  return {
    row: { name, result },
    verdict: {
      target,
      measured: `p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms ` +
        `(${result.requests} calls, ${result.non2xx} non-2xx)`,
      pass: result.p50Ms < MCP_LIST_P50_MS && result.non2xx === 0,
    },
  };
}
