/**
 * Real processes for multi-instance tests: free ports, `main.ts` servers that are waited
 * for through `/healthz` (bounded), and the CLI.
 * @module
 */

/** The repository root. */
export const ROOT = new URL("../", import.meta.url).pathname;
/** The pinned Deno binary (the one running the tests). */
export const DENO = `${ROOT}node_modules/deno/deno`;

/** A local port nobody listens on right now: listen on 0, read it, close. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Polls `probe` every 100 ms until it returns true or `ms` pass; returns elapsed ms or null. */
export async function within(ms: number, probe: () => Promise<boolean>): Promise<number | null> {
  const start = Date.now();
  while (Date.now() - start < ms) {
    if (await probe()) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

/** Whether a server at `url` answers `/healthz` within `ms` (polled every 100 ms). */
export async function serving(url: string, ms = 30_000): Promise<boolean> {
  const up = await within(ms, async () => {
    try {
      const res = await fetch(`${url}/healthz`);
      await res.body?.cancel();
      return res.ok;
    } catch {
      return false;
    }
  });
  return up !== null;
}

/** A running `main.ts`. */
export interface ServerProcess {
  url: string;
  port: number;
  child: Deno.ChildProcess;
  /** Terminates the process and waits for it. */
  stop: (signal?: Deno.Signal) => Promise<void>;
}

/** Starts `main.ts` with `env` on a free port and waits (at most 30 s) until it serves. */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = freePort();
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", "main.ts"],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env, PORT: String(port) },
    stdout: "null",
    stderr: "null",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  const stop = async (signal: Deno.Signal = "SIGTERM") => {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
    await child.status;
  };
  if (!(await serving(url))) {
    await stop("SIGKILL");
    throw new Error(`main.ts on port ${port} did not start within 30 s`);
  }
  return { url, port, child, stop };
}

/** Runs `cli.ts` with `env`; returns the exit code and both outputs as text. */
export async function runCliProcess(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(DENO, {
    args: ["run", "-A", "cli.ts", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}
