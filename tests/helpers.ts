/**
 * Test fixtures: a fresh in-memory KV per test, the real app over it, and small builders.
 * @module
 */
import { loadConfig } from "@/lib/config.ts";
import type { Deps } from "@/lib/deps.ts";
import { createForm } from "@/lib/forms/forms.ts";
import { eventsAt, type FeedEntry, type StoredFeedEvents } from "@/lib/feed/append.ts";
import { createApiKey } from "@/lib/keys/api_keys.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import type { PlanName } from "@/lib/workspaces/plans.ts";
import { buildDeps, type DepsOverrides } from "@/lib/runtime.ts";
import type { Form, FormDefinition, Scope, Workspace } from "@/lib/schemas.ts";
import { createWorkspace } from "@/lib/workspaces/workspaces.ts";
import { createApp } from "@/routes/mod.ts";
import { apiContract, contractViolation } from "@/tests/api_contract.ts";

/**
 * A test environment: deps over `:memory:` KV and the app built on them. Every `/api/v1`
 * answer the app gives (through `request`, `app.request` or `app.fetch`) is checked against
 * the OpenAPI document (tests/api_contract.ts): an undeclared one throws, and `close` throws
 * for any that a caller swallowed.
 */
export interface TestEnv {
  deps: Deps;
  app: ReturnType<typeof createApp>;
  /** Sends a request to the app as if from `ip` (TRUST_PROXY is on in tests). */
  request: (path: string, init?: RequestInit & { ip?: string }) => Promise<Response>;
  close: () => void;
}

/**
 * Builds a fresh environment; `env` overrides configuration variables. KV is `:memory:`
 * unless `env.KV_PATH` names a file (then several environments can share it, as instances).
 */
export async function testEnv(
  env: Record<string, string> = {},
  overrides: DepsOverrides = {},
): Promise<TestEnv> {
  const config = loadConfig({
    KV_PATH: ":memory:",
    SECRET: "test-secret-test-secret-test-secret-0123",
    FORMWELL_ENV: "test",
    TRUST_PROXY: "1",
    LOCAL_STORAGE_DIR: Deno.makeTempDirSync({ prefix: "formwell-test-" }),
    ...env,
  });
  const kv = await Deno.openKv(config.kvPath);
  const deps = await buildDeps(kv, config, overrides);
  const app = createApp(deps);
  const violations = checkedAnswers(app, deps);
  apiContract(deps);
  return {
    deps,
    app,
    request: (path, init = {}) => {
      const { ip = "203.0.113.7", ...rest } = init;
      const headers = new Headers(rest.headers);
      if (!headers.has("x-forwarded-for")) headers.set("x-forwarded-for", ip);
      return Promise.resolve(app.request(`http://localhost${path}`, { ...rest, headers }));
    },
    close: () => {
      deps.storage.close?.();
      kv.close();
      if (violations.length) throw new Error(`undocumented answers:\n${violations.join("\n")}`);
    },
  };
}

/**
 * Makes `app.fetch` (which `app.request` calls too) check each `/api/v1` answer against the
 * OpenAPI document; the violations found, which also throw where they happen.
 */
function checkedAnswers(app: ReturnType<typeof createApp>, deps: Deps): string[] {
  const violations: string[] = [];
  const fetch = app.fetch;
  app.fetch = async (req, ...rest) => {
    const res = await fetch(req, ...rest);
    const path = new URL(req.url).pathname;
    if (!path.startsWith("/api/v1/") || req.method === "OPTIONS" || req.method === "HEAD") {
      return res;
    }
    const wrong = await contractViolation(deps, req.method, req.url, res);
    if (wrong) {
      violations.push(wrong);
      throw new Error(wrong);
    }
    return res;
  };
  return violations;
}

/** A workspace on a plan. */
export async function makeWorkspace(deps: Deps, plan: PlanName = "starter"): Promise<Workspace> {
  return await createWorkspace(deps, { name: `ws-${plan}`, plan });
}

/** The contact form most tests use. */
export const CONTACT_FORM: FormDefinition = {
  name: "Contact",
  fields: [
    { id: "fld_name", name: "name", label: "Name", type: "text", required: true, maxLength: 100 },
    { id: "fld_email", name: "email", type: "email", required: true },
    { id: "fld_topic", name: "topic", type: "select", options: ["sales", "support"] },
  ],
  honeypot: "_gotcha",
};

/** A form with a free-text message (for tests of what the content model reads). */
export const MESSAGE_FORM: FormDefinition = {
  name: "Contact",
  fields: [
    { name: "name", type: "text" },
    { name: "email", type: "email" },
    { name: "message", type: "textarea" },
  ],
};

/** A form in a workspace. */
export async function makeForm(
  deps: Deps,
  workspace: Workspace,
  def: FormDefinition = CONTACT_FORM,
): Promise<Form> {
  return await createForm(deps, workspace.id, def);
}

/** A raw API key. */
export async function makeKey(
  deps: Deps,
  workspace: Workspace,
  opts: { type?: "live" | "test"; scopes?: Scope[] } = {},
): Promise<string> {
  return (await createApiKey(deps, { workspaceId: workspace.id, name: "test key", ...opts })).key;
}

/** POSTs JSON. */
export function postJson(
  env: TestEnv,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  ip?: string,
): Promise<Response> {
  return env.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ip,
  });
}

/**
 * The `i`-th bot-like post to a form with name, email and message fields: link-stuffed,
 * sent 400 ms after render, from one of three addresses.
 */
export function postBotLike(env: TestEnv, formId: string, i: number): Promise<Response> {
  return postJson(
    env,
    `/api/v1/submit/p/${formId}`,
    {
      data: {
        name: "Best Prices",
        email: `seo${i}@spam.example`,
        message:
          `Cheap backlinks https://a.test/${i} https://b.test https://c.test [url=https://d.test]d[/url]`,
      },
      rendered_at: Date.now() - 400,
    },
    {},
    `192.0.2.${i % 3}`,
  );
}

/** A valid submission body for CONTACT_FORM. */
export function contactData(i = 0): { data: Record<string, unknown> } {
  return { data: { name: `Person ${i}`, email: `person${i}@example.com` } };
}

/** Counts the submissions of a form by listing KV directly (the recount counters must equal). */
export async function recount(deps: Deps, formId: string): Promise<number> {
  let n = 0;
  for await (const _ of deps.kv.list({ prefix: ["submissions", formId] })) n++;
  return n;
}

/** A workspace's feed events as stored, in position order (read from KV directly). */
export async function storedFeed(
  deps: Deps,
  workspaceId: string,
  mode: Mode = "live",
): Promise<FeedEntry[]> {
  const out: FeedEntry[] = [];
  const prefix = keys.feedEvents(workspaceId, mode);
  for await (const e of deps.kv.list<StoredFeedEvents>({ prefix })) {
    out.push(...eventsAt(e.key[3] as number, e.value).map((x) => x.event));
  }
  return out;
}
