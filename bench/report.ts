/**
 * The bench table, the targets' verdicts, and `bench/RESULTS.md`.
 * @module
 */
import type { ThreadCpu } from "./threads.ts";
import type { WrkResult } from "./wrk.ts";

/** A request's CPU over every thread of the server. */
export function cpuTotal(c: ThreadCpu): number {
  return c.main + c.kv + c.v8 + c.other;
}

/** One table row: a wrk result plus what the process measured, or why it was skipped. */
export interface Row {
  name: string;
  result?: WrkResult;
  /** The runs `result` combines, when the row ran in rounds. */
  runs?: WrkResult[];
  /** Shown instead of figures (e.g. "n/a (not built)"). */
  skipped?: string;
  ratio?: number;
  commitsPerAccepted?: number;
  accepted?: number;
  /** From group commit (about the 201) to final verdict, over the row's submissions. */
  verdictMs?: { p50: number; p99: number; n: number; jobs: string };
  /** Group commits the writer made for those submissions. */
  writerCommits?: number;
  /** KV read calls (get, getMany, list) per request during the row. */
  readsPerRequest?: number;
  peakRssMb?: number;
  /** The server's CPU microseconds per request by thread, over the measured runs. */
  cpu?: ThreadCpu;
  /** The share of the machine's CPU time the host stole over the measured runs. */
  steal?: number;
}

/** One target and whether the run met it. */
export interface Verdict {
  target: string;
  measured: string;
  pass: boolean | null;
}

const HEAD = [
  "row",
  "req/s",
  "p50 ms",
  "p99 ms",
  "requests",
  "non-2xx",
  "ratio to floor",
  "KV commits / accepted",
  "peak RSS MB",
];

function fmt(n: number | undefined, digits = 1): string {
  return n === undefined || !Number.isFinite(n) ? "-" : n.toFixed(digits);
}

function cells(r: Row): string[] {
  if (!r.result) return [r.name, r.skipped ?? "n/a", "", "", "", "", "", "", ""];
  const w = r.result;
  return [
    r.name,
    fmt(w.rps, 0),
    fmt(w.p50Ms, 2),
    fmt(w.p99Ms, 2),
    String(w.requests),
    String(w.non2xx + w.socketErrors),
    fmt(r.ratio, 2),
    r.commitsPerAccepted === undefined
      ? "-"
      : `${fmt(r.commitsPerAccepted, 3)} (${r.accepted} accepted)`,
    fmt(r.peakRssMb, 0),
  ];
}

/** The table as fixed-width text for the terminal. */
export function textTable(rows: Row[]): string {
  const grid = [HEAD, ...rows.map(cells)];
  const widths = HEAD.map((_, i) => Math.max(...grid.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd();
  return [line(grid[0]), widths.map((w) => "-".repeat(w)).join("  "), ...grid.slice(1).map(line)]
    .join("\n");
}

/** The table as Markdown. */
export function markdownTable(rows: Row[]): string {
  const line = (r: string[]) => `| ${r.join(" | ")} |`;
  return [line(HEAD), line(HEAD.map(() => "---")), ...rows.map((r) => line(cells(r)))].join("\n");
}

/** The verdicts as text lines. */
export function verdictLines(verdicts: Verdict[]): string[] {
  return verdicts.map((v) =>
    `${v.pass === null ? "N/A " : v.pass ? "PASS" : "FAIL"}  ${v.target}: ${v.measured}`
  );
}

/**
 * Rounds of one bare server differing by more than this factor mean the machine was busy
 * (its disk, for the ceiling: see bench/disk.ts) in some of them.
 */
const NOISY_SPREAD = 1.3;
/**
 * A host stealing more than this share of the machine's CPU time during the rounds ran
 * other guests through them: the figures are the host's as much as the code's.
 */
const NOISY_STEAL = 0.1;

/**
 * A warning for the ratio's verdict when the reference's rounds (req/s) spread too widely or
 * the host stole much of the CPU during the rounds (`steal`, a share).
 */
export function noiseWarning(rates: number[], steal?: number): string {
  const spread = Math.max(...rates) / Math.min(...rates);
  const why: string[] = [];
  if (spread > NOISY_SPREAD) why.push(`the floor's rounds differ ${spread.toFixed(1)}x`);
  if (steal !== undefined && steal > NOISY_STEAL) {
    why.push(`the host stole ${(steal * 100).toFixed(0)}% of the machine's CPU time in them`);
  }
  return why.length
    ? ` (${why.join("; ")}: the machine was busy, so this ratio is not a stable figure; ` +
      `run again when it is quiet)`
    : "";
}

/** Facts about the machine and software, for the results file. */
export async function machineFacts(wrkVersion: string): Promise<string[]> {
  const cpuinfo = await Deno.readTextFile("/proc/cpuinfo").catch(() => "");
  const model = /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1] ?? "unknown CPU";
  const mem = Deno.systemMemoryInfo();
  const git = await new Deno.Command("git", {
    args: ["rev-parse", "--short", "HEAD"],
    stdout: "piped",
  })
    .output().then((o) => new TextDecoder().decode(o.stdout).trim()).catch(() => "unknown");
  const denoJson = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const dep = (name: string) => String(denoJson.imports?.[name] ?? "?").replace(/^npm:/, "");
  return [
    `- CPU: ${model}, ${navigator.hardwareConcurrency} cores`,
    `- Memory: ${(mem.total / 1024 ** 3).toFixed(1)} GiB total`,
    `- OS: ${Deno.build.os} ${Deno.osRelease()} (${Deno.build.arch})`,
    `- Deno ${Deno.version.deno}, V8 ${Deno.version.v8}, TypeScript ${Deno.version.typescript}`,
    `- ${dep("hono")}, ${dep("zod")}; load generator: ${wrkVersion}`,
    `- Commit: ${git}`,
  ];
}

/**
 * Where each row's CPU went, per request and by thread, and the rate the main thread
 * alone would allow: it runs all JavaScript and the HTTP server, so at 100% of its one
 * core it caps the row whatever the other threads could do.
 */
export function cpuLines(rows: Row[]): string[] {
  return rows.filter((r) => r.cpu).map((r) => {
    const c = r.cpu!;
    const total = cpuTotal(c);
    const stolen = r.steal === undefined
      ? ""
      : `; the host stole ${(r.steal * 100).toFixed(1)}% of the machine's CPU time meanwhile`;
    return `${r.name}: ${total.toFixed(0)} µs CPU per request: main thread ` +
      `${c.main.toFixed(0)} (caps it at ${(1e6 / c.main).toFixed(0)} req/s), KV's SQLite ` +
      `thread ${c.kv.toFixed(0)}, V8 helper threads ${c.v8.toFixed(0)}, other ` +
      `${c.other.toFixed(0)}${stolen}`;
  });
}

/** Writes `bench/RESULTS.md`. */
export async function writeResults(
  facts: string[],
  settings: string[],
  rows: Row[],
  verdicts: Verdict[],
): Promise<string> {
  const path = new URL("./RESULTS.md", import.meta.url);
  const text = [
    "# Formwell benchmark results",
    "",
    `Written by \`deno task bench\` on ${new Date().toISOString()}.`,
    "",
    "## Machine and versions",
    "",
    ...facts,
    "",
    "## Settings",
    "",
    ...settings,
    "",
    "## Results",
    "",
    markdownTable(rows),
    "",
    "## Targets",
    "",
    ...verdictLines(verdicts).map((l) => `- ${l}`),
    "",
    "## CPU per request, by thread",
    "",
    "The server's CPU time over the measured runs (warm-ups excluded) divided by the " +
    "requests wrk counted; a thread at 100% of a core caps the rate at 1,000,000 µs divided " +
    "by its figure. Steal (from /proc/stat) is time this virtual machine was ready to run " +
    "while the host ran other guests: where it is high, every figure of that row is slower " +
    "than the code.",
    "",
    ...cpuLines(rows).map((l) => `- ${l}`),
    "",
  ].join("\n");
  await Deno.writeTextFile(path, text);
  return path.pathname;
}
