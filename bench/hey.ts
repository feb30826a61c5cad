/**
 * Latency at a fixed offered rate with hey (`-q` holds each worker's rate), the figure
 * saturated wrk runs cannot give: p99 at 64 workers x 32 req/s = 2,048 req/s offered.
 * @module
 */
import type { WrkResult } from "./wrk.ts";

/** One fixed-rate request shape (hey sends the same request every time). */
export interface HeyRequest {
  method: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Installs hey with apt-get when it is not on PATH. */
export async function ensureHey(): Promise<void> {
  if (await heyPresent()) return;
  console.error("hey not found: installing it with apt-get");
  const sudo = Deno.uid?.() === 0 ? [] : ["sudo"];
  for (const args of [["update"], ["install", "-y", "hey"]]) {
    const cmd = [...sudo, "apt-get", ...args];
    const out = await new Deno.Command(cmd[0], { args: cmd.slice(1), stdout: "inherit" }).output();
    if (!out.success) throw new Error(`${cmd.join(" ")} failed`);
  }
  if (!(await heyPresent())) throw new Error("hey is still missing after apt-get install");
}

async function heyPresent(): Promise<boolean> {
  try {
    await new Deno.Command("hey", { stdout: "null", stderr: "null" }).output();
    return true;
  } catch {
    return false;
  }
}

/** Runs hey for `seconds` at `workers` x `perWorker` req/s and parses its CSV output. */
export async function runHey(
  req: HeyRequest,
  opts: { seconds: number; workers: number; perWorker: number },
): Promise<WrkResult> {
  const args = [
    "-z",
    `${opts.seconds}s`,
    "-c",
    String(opts.workers),
    "-q",
    String(opts.perWorker),
    "-m",
    req.method,
    "-o",
    "csv",
  ];
  for (const [k, v] of Object.entries(req.headers ?? {})) args.push("-H", `${k}: ${v}`);
  if (req.body !== undefined) args.push("-d", req.body);
  args.push(req.url);
  const out = await new Deno.Command("hey", { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(`hey failed: ${new TextDecoder().decode(out.stderr)}`);
  return parseHeyCsv(new TextDecoder().decode(out.stdout), opts.seconds);
}

/**
 * Parses hey's `-o csv` rows (`response-time,DNS+dialup,DNS,Request-write,Response-delay,
 * Response-read,status-code,offset`, times in seconds) into a run summary.
 */
export function parseHeyCsv(csv: string, seconds: number): WrkResult {
  const times: number[] = [];
  let non2xx = 0;
  for (const line of csv.split("\n").slice(1)) {
    const cols = line.split(",");
    if (cols.length < 8) continue;
    times.push(Number(cols[0]) * 1000);
    const status = Number(cols[6]);
    if (!(status >= 200 && status < 300)) non2xx++;
  }
  times.sort((a, b) => a - b);
  const at = (q: number) =>
    times.length ? times[Math.min(times.length - 1, Math.floor(q * times.length))] : NaN;
  return {
    requests: times.length,
    non2xx,
    socketErrors: 0,
    seconds,
    rps: times.length / seconds,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  };
}
