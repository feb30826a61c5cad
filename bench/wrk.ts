/**
 * Driving load with wrk from a second process: installing it when missing, a Lua script
 * per row (unique Idempotency-Keys per request), and a machine-readable summary printed
 * by the script's `done` hook instead of parsing wrk's human output.
 * @module
 */

/** What one wrk run measured. */
export interface WrkResult {
  requests: number;
  /** Responses with status >= 400 (wrk's "Non-2xx or 3xx"; our routes send no 3xx). */
  non2xx: number;
  /** Connect, read, write and timeout errors. */
  socketErrors: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * One request shape for wrk. In `body` and header values, `{{key}}` becomes a key unique
 * to the request and `{{ip}}` one of 64 client addresses (a visitor per connection).
 */
export interface WrkRequest {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Send an `Idempotency-Key: {{key}}` header on every request. */
  idempotencyKey?: boolean;
}

/** Installs wrk with apt-get when it is not on PATH; returns its version line. */
export async function ensureWrk(): Promise<string> {
  let version = await wrkVersion();
  if (version) return version;
  console.error("wrk not found: installing it with apt-get");
  const sudo = Deno.uid?.() === 0 ? [] : ["sudo"];
  for (const args of [["update"], ["install", "-y", "wrk"]]) {
    const cmd = [...sudo, "apt-get", ...args];
    const out = await new Deno.Command(cmd[0], { args: cmd.slice(1), stdout: "inherit" }).output();
    if (!out.success) throw new Error(`${cmd.join(" ")} failed`);
  }
  version = await wrkVersion();
  if (!version) throw new Error("wrk is still missing after apt-get install");
  return version;
}

async function wrkVersion(): Promise<string | null> {
  try {
    const out = await new Deno.Command("wrk", { args: ["-v"], stdout: "piped", stderr: "piped" })
      .output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    return text.split("\n")[0].trim() || "wrk";
  } catch {
    return null;
  }
}

function luaString(s: string): string {
  return JSON.stringify(s); // a JSON string literal is a valid Lua string literal for ASCII
}

/** Turns a template into a Lua concatenation with the variables `key` and `ip`. */
function luaTemplate(s: string): string {
  return s.split("{{key}}").map((part) => part.split("{{ip}}").map(luaString).join(" .. ip .. "))
    .join(" .. key .. ");
}

/** The Lua script of one request shape: per-thread counters make every key unique. */
export function wrkScript(req: WrkRequest, tag: string): string {
  const headers = { ...req.headers };
  if (req.idempotencyKey) headers["Idempotency-Key"] = "{{key}}";
  const headerLines = Object.entries(headers)
    .map(([k, v]) => `  h[${luaString(k)}] = ${luaTemplate(v)}`)
    .join("\n");
  const body = req.body === undefined ? "nil" : luaTemplate(req.body);
  return `
local next_id = 1
function setup(thread)
  thread:set("tid", next_id)
  next_id = next_id + 1
end
local counter = 0
function request()
  counter = counter + 1
  local key = ${luaString(tag)} .. "-" .. tid .. "-" .. counter
  local ip = "10.0." .. tid .. "." .. (counter % 32 + 1)
  local h = {}
${headerLines}
  return wrk.format(${luaString(req.method)}, ${luaString(req.path)}, h, ${body})
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRKJSON {\\"requests\\":%d,\\"non2xx\\":%d,\\"socket\\":%d,\\"us\\":%d,\\"p50\\":%d,\\"p99\\":%d}\\n",
    summary.requests, e.status, e.connect + e.read + e.write + e.timeout, summary.duration,
    latency:percentile(50), latency:percentile(99)))
end
`;
}

/** Runs wrk against `baseUrl` for `seconds` with `connections` open connections. */
export async function runWrk(
  baseUrl: string,
  req: WrkRequest,
  opts: { seconds: number; connections: number; threads?: number; tag: string },
): Promise<WrkResult> {
  const script = await Deno.makeTempFile({ prefix: "formwell-wrk-", suffix: ".lua" });
  try {
    await Deno.writeTextFile(script, wrkScript(req, opts.tag));
    const threads = Math.min(opts.threads ?? 2, opts.connections);
    const out = await new Deno.Command("wrk", {
      args: [
        `-t${threads}`,
        `-c${opts.connections}`,
        `-d${opts.seconds}s`,
        "--timeout",
        "10s",
        "-s",
        script,
        baseUrl,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    const line = text.split("\n").find((l) => l.startsWith("WRKJSON "));
    if (!out.success || !line) {
      throw new Error(`wrk failed: ${text}\n${new TextDecoder().decode(out.stderr)}`);
    }
    const r = JSON.parse(line.slice("WRKJSON ".length));
    const seconds = r.us / 1e6;
    return {
      requests: r.requests,
      non2xx: r.non2xx,
      socketErrors: r.socket,
      seconds,
      rps: r.requests / seconds,
      p50Ms: r.p50 / 1000,
      p99Ms: r.p99 / 1000,
    };
  } finally {
    await Deno.remove(script).catch(() => {});
  }
}

/**
 * Several runs of one row as one result: their requests over their time, and the median
 * run's p50 and p99 (wrk gives percentiles per run, which cannot be merged exactly; the
 * median keeps one run disturbed from elsewhere from deciding).
 */
export function combineRuns(runs: WrkResult[]): WrkResult {
  const sum = (f: (r: WrkResult) => number) => runs.reduce((n, r) => n + f(r), 0);
  const seconds = sum((r) => r.seconds);
  return {
    requests: sum((r) => r.requests),
    non2xx: sum((r) => r.non2xx),
    socketErrors: sum((r) => r.socketErrors),
    seconds,
    rps: sum((r) => r.requests) / seconds,
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
  };
}

/** The middle value (the upper one of the two middle values for an even count). */
export function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}
