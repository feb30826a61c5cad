/**
 * Real server processes for the reliability suite: `node_modules/deno/deno run -A main.ts`
 * on a KV file, a free port each start, killed with SIGKILL like a crashed machine.
 * @module
 */
import { BENCH_RATE_LIMITS, freePort } from "@/bench/server.ts";

const ROOT = new URL("../../", import.meta.url);
/** The repo's Deno binary (the only way the project runs Deno). */
export const DENO = new URL("node_modules/deno/deno", ROOT).pathname;
/** A fixed secret so every process signs alike without reading it from KV first. */
export const SOAK_SECRET = "soak-secret-soak-secret-soak-secret-0123";

/** A running server process. */
export interface ServerProcess {
  url: string;
  pid: number;
  /** SIGKILL and wait for the exit (a crash: nothing gets to clean up). */
  kill9: () => Promise<void>;
  /** What the process wrote to stderr (for diagnosing a failure). */
  stderr: () => string;
}

/** The environment every soak server runs with: production, raised limits, no demo seed. */
export function soakEnv(kvPath: string, port: number, dir: string): Record<string, string> {
  return {
    KV_PATH: kvPath,
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    FORMWELL_ENV: "production",
    FORMWELL_SEED: "0",
    SECRET: SOAK_SECRET,
    LOCAL_STORAGE_DIR: `${dir}/files`,
    RATE_LIMITS: JSON.stringify(BENCH_RATE_LIMITS),
    NO_COLOR: "1",
  };
}

/** Polls `url` until it answers 200, at most `tries` times (the child may still be starting). */
export async function waitHealthy(url: string, isAlive: () => boolean, tries = 600): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (!isAlive()) throw new Error(`server process exited before ${url} answered`);
    try {
      const res = await fetch(`${url}/healthz`);
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${url}/healthz did not answer`);
}

/** Starts `main.ts` on `kvPath` and resolves once `/healthz` answers. */
export async function startServer(
  kvPath: string,
  dir: string,
  extraEnv: Record<string, string> = {},
): Promise<ServerProcess> {
  const port = freePort();
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", "main.ts"],
    cwd: ROOT.pathname,
    env: { ...soakEnv(kvPath, port, dir), ...extraEnv },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let err = "";
  const decoder = new TextDecoder();
  const drained = child.stderr.pipeTo(
    new WritableStream({
      write: (chunk) => void (err = (err + decoder.decode(chunk)).slice(-20_000)),
    }),
  ).catch(() => {});
  let alive = true;
  const exited = child.status.then((s) => {
    alive = false;
    return s;
  });
  const proc: ServerProcess = {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    kill9: async () => {
      if (alive) {
        try {
          child.kill("SIGKILL");
        } catch {
          // Already gone.
        }
      }
      await exited;
      await drained;
    },
    stderr: () => err,
  };
  try {
    await waitHealthy(proc.url, () => alive);
  } catch (e) {
    await proc.kill9();
    throw new Error(`${(e as Error).message}\n${err}`);
  }
  return proc;
}
