/**
 * The servers a benchmark run measures: the Formwell app in production mode over an
 * on-disk KV, inside the bench process so it can read the writer's stats, count every KV
 * commit and watch its own RSS; and the ceiling (bench/ceiling.ts, its own process).
 * @module
 */
import { loadConfig } from "@/lib/config.ts";
import type { Deps } from "@/lib/deps.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import { buildDeps, openKv } from "@/lib/runtime.ts";
import { createApp } from "@/routes/mod.ts";
import { verdictRecorder } from "./verdicts.ts";

/** Rate limits raised so the limiter runs on every request without being the bottleneck. */
export const BENCH_RATE_LIMITS = {
  submit: 1_000_000,
  workspace: 1_000_000,
  schema: 1_000_000,
  upload_url: 1_000_000,
  validate: 1_000_000,
  events: 1_000_000,
  drafts: 1_000_000,
};

/** A server the bench started; `close` stops it and closes its KV. */
export interface BenchServer {
  url: string;
  /** Its process id when it runs in a process of its own. */
  pid?: number;
  close: () => Promise<void>;
}

/** A port that was free a moment ago (the OS picks it; we close and reuse the number). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Every atomic `commit()` and every KV read (get, getMany, list) in this process, counted. */
export const commitCounter = { commits: 0, reads: 0 };
let patched = false;

/**
 * Wraps `Deno.AtomicOperation.prototype.commit` and the KV read methods once so every
 * commit and every read round trip is counted (each is one trip to SQLite's thread).
 */
export function countCommits(): void {
  if (patched) return;
  patched = true;
  const proto = Deno.AtomicOperation.prototype;
  const original = proto.commit;
  proto.commit = function (this: Deno.AtomicOperation) {
    commitCounter.commits++;
    return original.call(this);
  };
  const kvProto = Deno.Kv.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const name of ["get", "getMany", "list"]) {
    const read = kvProto[name];
    kvProto[name] = function (this: Deno.Kv, ...args: unknown[]) {
      commitCounter.reads++;
      return read.apply(this, args);
    };
  }
}

/** Linux's exact peak RSS of this process (VmHWM) in bytes, or 0 elsewhere. */
function highWaterMark(): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(Deno.readTextFileSync("/proc/self/status"))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * This process's peak RSS since the last reset: samples every 50 ms, and on Linux the
 * kernel's high-water mark (reset through /proc/self/clear_refs), which misses no spike.
 */
export class RssSampler {
  peak = 0;
  #timer: ReturnType<typeof setInterval>;

  constructor() {
    this.#timer = setInterval(() => this.sample(), 50);
  }

  /** Takes one sample now. */
  sample(): void {
    this.peak = Math.max(this.peak, Deno.memoryUsage().rss, highWaterMark());
  }

  /** Starts a new peak from the current RSS. */
  reset(): void {
    try {
      Deno.writeTextFileSync("/proc/self/clear_refs", "5");
    } catch {
      // Not Linux, or not allowed: the 50 ms samples still count.
    }
    this.peak = Deno.memoryUsage().rss;
  }

  /** Stops sampling. */
  stop(): void {
    clearInterval(this.#timer);
  }
}

function serve(handler: Deno.ServeHandler, port: number): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, handler);
}

/**
 * Starts Formwell (production mode, on-disk KV at `kvPath`) and its queue listener.
 * `verdictMs` gets, in verdict order, the milliseconds from each submission's group commit
 * (its `created_at`, taken just before the commit whose success sends the 201) to its final
 * verdict's commit, as its metrics port saw them (bench/verdicts.ts).
 */
export async function startFormwell(
  dir: string,
  kvPath: string,
  env: Record<string, string> = {},
): Promise<BenchServer & { deps: Deps; verdictMs: number[] }> {
  const port = freePort();
  const config = loadConfig({
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    KV_PATH: kvPath,
    FORMWELL_ENV: "production",
    FORMWELL_SEED: "0",
    // Browser rows say which of 64 visitors they are in X-Forwarded-For, as behind a proxy.
    TRUST_PROXY: "1",
    LOCAL_STORAGE_DIR: `${dir}/files`,
    RATE_LIMITS: JSON.stringify(BENCH_RATE_LIMITS),
    // `JOBS=table deno task bench` measures the job table instead of KV queues.
    JOBS: Deno.env.get("JOBS"),
    // The webhook receiver listens on loopback (bench/receiver.ts).
    WEBHOOK_ALLOW_PRIVATE: "1",
    ...env,
  });
  const kv = await openKv(config);
  const verdictMs: number[] = [];
  const deps = await buildDeps(kv, config, {
    metrics: (configured) => verdictRecorder(verdictMs, configured),
  });
  deps.jobs.start((msg, ctx) => dispatch(deps, msg, ctx));
  const app = createApp(deps);
  const server = serve((req, info) => app.fetch(req, info), port);
  return {
    url: `http://127.0.0.1:${port}`,
    deps,
    verdictMs,
    close: async () => {
      await server.shutdown();
      await deps.jobs.stop();
      kv.close();
    },
  };
}

/**
 * Starts one of the bare reference servers (bench/ceiling.ts, bench/floor.ts) as its own
 * process on a KV file beside Formwell's.
 */
export async function startBare(
  script: "ceiling.ts" | "floor.ts",
  kvPath: string,
): Promise<BenchServer> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(`./${script}`, import.meta.url).pathname, kvPath, String(port)],
    cwd: new URL("../", import.meta.url).pathname,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0;; i++) {
    try {
      await (await fetch(url, { method: "POST", body: "{}" })).body?.cancel();
      break;
    } catch {
      if (i > 400) throw new Error(`${script} did not start`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  return {
    url,
    pid: child.pid,
    close: async () => {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** The webhook receiver (bench/receiver.ts) in its own process. */
export async function startReceiver(): Promise<{
  url: string;
  reset: () => Promise<void>;
  /** Latencies of standard deliveries (`/hook`), or of the Slack destination (`/slack`). */
  stats: (
    kind?: "standard" | "slack",
  ) => Promise<{ n: number; p50: number | null; p99: number | null }>;
  close: () => Promise<void>;
}> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./receiver.ts", import.meta.url).pathname, String(port)],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    const ok = await fetch(`${url}/stats`).then((r) => r.body?.cancel().then(() => r.ok))
      .catch(() => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    reset: async () => void await (await fetch(`${url}/reset`, { method: "POST" })).text(),
    stats: async (kind = "standard") => await (await fetch(`${url}/stats?kind=${kind}`)).json(),
    close: async () => {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}
