/**
 * What the client's browser tests share: a real `main.ts` on a temp KV file behind a TCP
 * proxy (so the server can be killed and restarted on another port while pages keep one
 * base URL, and killed at the exact moment its answer is on the wire), a static server for
 * the sites' pages (another origin), and a count of stored submissions through the Server
 * Data API.
 * @module
 */
import { loadConfig } from "@/lib/config.ts";
import { createApiKey } from "@/lib/keys/api_keys.ts";
import { createForm } from "@/lib/forms/forms.ts";
import { buildDeps } from "@/lib/runtime.ts";
import type { Form, FormDefinition } from "@/lib/schemas.ts";
import { createWorkspace } from "@/lib/workspaces/workspaces.ts";
import { freePort, type ServerProcess, startServer } from "@/tests/processes.ts";

/** A TCP proxy to the current server port. */
export interface Proxy {
  url: string;
  /** The port connections are forwarded to. */
  target: number;
  /** Calls `onAnswer` when the next `201` answer passes, and drops that answer. */
  dropNext201: (onAnswer: () => Promise<void>) => void;
  close: () => void;
}

/** Forwards every connection to `127.0.0.1:<target>`, byte for byte. */
export function startProxy(target: number): Proxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  let onDrop: (() => Promise<void>) | null = null;
  const proxy: Proxy = {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    target,
    dropNext201: (fn) => onDrop = fn,
    close: () => {
      listener.close();
      for (const c of conns) c.close();
    },
  };
  const closeAll = (...cs: Deno.Conn[]) => {
    for (const c of cs) {
      conns.delete(c);
      try {
        c.close();
      } catch { /* closed already */ }
    }
  };
  const pipe = async (client: Deno.Conn) => {
    let upstream: Deno.Conn;
    try {
      upstream = await Deno.connect({
        hostname: "127.0.0.1",
        port: proxy.target,
      });
    } catch {
      return closeAll(client);
    }
    conns.add(upstream);
    const up = client.readable.pipeTo(upstream.writable).catch(() => {});
    const down = (async () => {
      const writer = client.writable.getWriter();
      for await (const chunk of upstream.readable) {
        if (
          onDrop &&
          new TextDecoder().decode(chunk.subarray(0, 16)).startsWith(
            "HTTP/1.1 201",
          )
        ) {
          const fn = onDrop;
          onDrop = null;
          await fn();
          break;
        }
        await writer.write(chunk);
      }
    })().catch(() => {});
    await Promise.race([up, down]);
    closeAll(client, upstream);
  };
  (async () => {
    for await (const c of listener) {
      conns.add(c);
      void pipe(c);
    }
  })().catch(() => {});
  return proxy;
}

/** Serves `pages` (path -> HTML) from another origin; `url` is its base. */
export function startPages(
  pages: Record<string, string>,
): { url: string; close: () => Promise<void> } {
  const port = freePort();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, onListen: () => {} },
    (req) => {
      const html = pages[new URL(req.url).pathname];
      return html === undefined ? new Response("not found", { status: 404 }) : new Response(html, {
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    },
  );
  return { url: `http://127.0.0.1:${port}`, close: () => server.shutdown() };
}

/** The service as the browser tests use it. */
export interface Service {
  /** The proxy's address: the service's stable base URL. */
  url: string;
  form: Form;
  /** The KV file the server uses (a test may open it too, as a second instance). */
  kvPath: string;
  proxy: Proxy;
  server: ServerProcess;
  /** Starts a new server process on the same KV file and points the proxy at it. */
  restart: () => Promise<void>;
  /** Stored submissions of the form, counted through the Server Data API. */
  count: () => Promise<number>;
  /** The form's stored submissions (newest first). */
  submissions: () => Promise<Record<string, unknown>[]>;
  stop: () => Promise<void>;
}

/** A workspace, `def` as its form and a read key on a temp KV file, served by `main.ts`. */
export async function startService(def: FormDefinition): Promise<Service> {
  const dir = await Deno.makeTempDir({ prefix: "formwell-sdk-browser-" });
  const proxy = startProxy(0);
  const env = {
    KV_PATH: `${dir}/formwell.kv`,
    SECRET: "sdk-browser-secret-sdk-browser-secret-00",
    FORMWELL_SEED: "0",
    LOCAL_STORAGE_DIR: `${dir}/files`,
    BASE_URL: proxy.url,
    RATE_LIMITS: JSON.stringify({
      submit: 1000,
      schema: 1000,
      upload_url: 1000,
    }),
  };
  const kv = await Deno.openKv(env.KV_PATH);
  const deps = await buildDeps(
    kv,
    loadConfig({ ...env, FORMWELL_ENV: "test" }),
  );
  const ws = await createWorkspace(deps, { name: "sdk", plan: "starter" });
  const form = await createForm(deps, ws.id, def);
  const key = (await createApiKey(deps, { workspaceId: ws.id, name: "count" })).key;
  kv.close();
  const service: Service = {
    url: proxy.url,
    form,
    kvPath: env.KV_PATH,
    proxy,
    server: await startServer(env),
    async restart() {
      this.server = await startServer(env);
      proxy.target = this.server.port;
    },
    async submissions() {
      const res = await fetch(
        `${this.server.url}/api/v1/server/forms/${form.id}/submissions?limit=100`,
        { headers: { authorization: `Bearer ${key}` } },
      );
      if (!res.ok) throw new Error(`count: ${res.status} ${await res.text()}`);
      return (await res.json()).submissions;
    },
    async count() {
      return (await this.submissions()).length;
    },
    async stop() {
      proxy.close();
      await this.server.stop("SIGKILL");
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
  proxy.target = service.server.port;
  return service;
}
