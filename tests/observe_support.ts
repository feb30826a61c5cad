/**
 * Test support for the operations tests that run a real `main.ts`: a KV file prepared
 * in-process (workspace, form, key, owner), the server started with its whole output kept.
 * @module
 */
import { loadConfig } from "@/lib/config.ts";
import { createUser } from "@/lib/admin/users.ts";
import { createForm } from "@/lib/forms/forms.ts";
import { createApiKey } from "@/lib/keys/api_keys.ts";
import { buildDeps, openKv } from "@/lib/runtime.ts";
import type { Deps } from "@/lib/deps.ts";
import type { Form, FormDefinition } from "@/lib/schemas.ts";
import { createWorkspace } from "@/lib/workspaces/workspaces.ts";
import { DENO, freePort, ROOT, serving } from "./processes.ts";

/** The `SECRET` of these runs. */
export const SECRET = "observe-test-secret-0123456789-abcdefghij";
/** The owner's password. */
export const PASSWORD = "correct horse battery staple";
/** The owner's email. */
export const OWNER = "owner@example.com";

/** What a prepared KV file holds. */
export interface Prepared {
  dir: string;
  kvPath: string;
  form: Form;
  workspaceId: string;
  /** A raw live key with every scope. */
  key: string;
}

/** Prepares a KV file; `extra` adds more (e.g. a webhook) before it closes. */
export async function prepareKv(
  form: FormDefinition,
  extra?: (deps: Deps, p: Prepared) => Promise<void>,
): Promise<Prepared> {
  const dir = await Deno.makeTempDir({ prefix: "formwell-observe-" });
  const config = loadConfig({
    KV_PATH: `${dir}/formwell.kv`,
    SECRET,
    FORMWELL_ENV: "test",
    LOCAL_STORAGE_DIR: `${dir}/files`,
    WEBHOOK_ALLOW_PRIVATE: "1",
  });
  const kv = await openKv(config);
  const deps = await buildDeps(kv, config);
  try {
    const ws = await createWorkspace(deps, { name: "Ops", plan: "starter" });
    const created = await createForm(deps, ws.id, form);
    const { key } = await createApiKey(deps, {
      workspaceId: ws.id,
      name: "ops key",
      scopes: ["submit", "read", "admin"],
    });
    await createUser(deps, {
      email: OWNER,
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "owner",
      owner: true,
    });
    const p = { dir, kvPath: config.kvPath!, form: created, workspaceId: ws.id, key };
    await extra?.(deps, p);
    return p;
  } finally {
    deps.storage.close?.();
    kv.close();
  }
}

/** A running `main.ts` whose stdout and stderr are kept. */
export interface LoggedServer {
  url: string;
  /** Everything written so far: stdout, then stderr. */
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts `main.ts` over `p`'s KV with `env`; waits (at most 30 s) for `/healthz`. */
export async function startLogged(
  p: Prepared,
  env: Record<string, string>,
): Promise<LoggedServer> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", "main.ts"],
    cwd: ROOT,
    env: {
      NO_COLOR: "1",
      KV_PATH: p.kvPath,
      SECRET,
      FORMWELL_ENV: "test",
      FORMWELL_SEED: "0",
      LOCAL_STORAGE_DIR: `${p.dir}/files`,
      BASE_URL: url,
      PORT: String(port),
      ...env,
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Kept apart, so a line is never cut by the other stream's chunk.
  const kept = { out: "", err: "" };
  const keep = async (s: ReadableStream<Uint8Array>, into: "out" | "err") => {
    const decoder = new TextDecoder();
    for await (const chunk of s) kept[into] += decoder.decode(chunk, { stream: true });
  };
  const text = () => `${kept.out}${kept.out.endsWith("\n") || !kept.out ? "" : "\n"}${kept.err}`;
  const drained = Promise.all([keep(child.stdout, "out"), keep(child.stderr, "err")]);
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // already gone
    }
    await child.status;
    await drained;
  };
  if (!(await serving(url))) {
    await stop();
    throw new Error(`main.ts did not start within 30 s:\n${text()}`);
  }
  return { url, output: text, stop };
}
