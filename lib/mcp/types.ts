/**
 * Shared types of the MCP server: what a tool is (its scope, the Server Data API route
 * whose rate limit it spends, its input schema and its run) and what a run gets.
 * @module
 */
import type { z } from "zod";
import type { Deps } from "@/lib/deps.ts";
import type { KeyAuth } from "@/lib/keys/types.ts";
import type { Scope } from "@/lib/schemas.ts";

/** Who calls a tool: the key's auth and the caller's address (for the audit log). */
export interface ToolCaller {
  auth: KeyAuth;
  ip: string;
}

/** What a tool's run answers: a JSON object, and whether it holds visitor input. */
export interface ToolAnswer {
  result: Record<string, unknown>;
  /** The result holds submission values: the answer says they are data, not instructions. */
  visitorInput?: boolean;
}

/** One MCP tool. */
export interface Tool<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  /** The key scope that lists and calls it. */
  scope: Scope;
  /** The Server Data API route whose per-workspace budget a call spends. */
  route: string;
  title: string;
  /** For a model: what it does, what it returns, its limits. */
  description: string;
  input: S;
  /** Whether it changes nothing (an MCP annotation clients show). */
  readOnly: boolean;
  run: (deps: Deps, caller: ToolCaller, args: z.output<z.ZodObject<S>>) => Promise<ToolAnswer>;
}
