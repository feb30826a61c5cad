/**
 * The scale rows: one form holding `n` submissions (1,000,000 unless `BENCH_SCALE=N`),
 * loaded once (bench/scale_load.ts, its own process, timed) into a KV file of its own and
 * served by a Formwell process of its own (bench/scale_server.ts), then measured in this
 * order, each checking it saw every match:
 *
 * - `list page 1 of 100`, and `search` for a rare and a common word (first page of 100),
 *   one connection, p50 and p99; each search's `total` must equal the planted count;
 * - `CSV export`: the admin's export route streamed to the end, rows per second and the
 *   server's peak RSS (its kernel high-water mark, reset before);
 * - `erase by email`: the Server API's erase job for one address, timed from the request to
 *   the job's `done`, which must have deleted every submission holding it.
 *
 * `deno run -A bench/scale.ts` measures these rows alone and prints them (not RESULTS.md).
 * @module
 */
import { COMMON_WORD, ERASE_EMAIL, RARE_WORD, ScaleDataset } from "./scale_data.ts";
import type { LoadReport } from "./scale_load.ts";
import { SCALE_PASSWORD, SCALE_USER } from "./scale_load.ts";
import type { MeasureRun } from "./metrics.ts";
import { keys } from "@/lib/kv/keys.ts";
import { type Row, textTable, type Verdict, verdictLines } from "./report.ts";
import { ensureWrk, runWrk, type WrkRequest, type WrkResult } from "./wrk.ts";

/** Submissions the scale rows store unless `BENCH_SCALE` says otherwise. */
export const SCALE_DEFAULT = 1_000_000;
/** The search rows' p50 target, in ms (first page of 100). */
export const SEARCH_P50_MS = 50;
/** The list row's p50 target, in ms (as at 100,000 stored). */
export const LIST_P50_MS = 20;
/** The CSV export's peak RSS target, in MB. */
export const EXPORT_RSS_MB = 250;
/** V8 flags as `deno task start` passes them. */
const V8_FLAGS = "--v8-flags=--max-semi-space-size=16,--heap-growing-percent=50";
const MB = 1024 * 1024;
const ROOT = new URL("../", import.meta.url).pathname;

/**
 * Minutes the load may take (`BENCH_SCALE_MINUTES`, default 10): past them the rows measure
 * what was written and the load's target fails, rather than the bench running for hours.
 */
export function scaleMinutes(): number {
  const raw = Deno.env.get("BENCH_SCALE_MINUTES");
  const m = raw ? Number(raw) : 10;
  if (!(m > 0)) throw new Error(`BENCH_SCALE_MINUTES=${raw}: a number of minutes`);
  return m;
}

/** `BENCH_SCALE` as a count of submissions, else `fallback`. */
export function scaleSize(fallback = SCALE_DEFAULT): number {
  const raw = Deno.env.get("BENCH_SCALE");
  const n = raw ? Number(raw.replaceAll("_", "").replaceAll(",", "")) : fallback;
  if (!Number.isInteger(n) || n < 10) throw new Error(`BENCH_SCALE=${raw}: a count of at least 10`);
  return n;
}

/** `1000000` as `1,000,000`. */
export function grouped(n: number): string {
  return n.toLocaleString("en-US");
}

/** Runs the loader process (for `minutes` at most); its report. */
async function load(kvPath: string, n: number, minutes: number): Promise<LoadReport> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}bench/scale_load.ts`, kvPath, String(n), String(minutes)],
    cwd: ROOT,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  if (!out.success) throw new Error(`scale_load.ts failed: ${text}`);
  return JSON.parse(text.split("\n").at(-1)!);
}

/** A server process of the scale rows. */
interface ScaleServer {
  url: string;
  pid: number;
  close: () => Promise<void>;
}

async function startServer(dir: string, kvPath: string): Promise<ScaleServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", V8_FLAGS, `${ROOT}bench/scale_server.ts`, dir, kvPath],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("scale_server.ts exited before listening");
    text += value;
  }
  const { url } = JSON.parse(text.split("\n")[0]);
  // Keep draining its stdout so the process never blocks on a full pipe.
  (async () => {
    while (!(await reader.read()).done) { /* drop */ }
  })().catch(() => {});
  return {
    url,
    pid: child.pid,
    close: async () => {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** The kernel's peak RSS of process `pid` (VmHWM), in bytes; 0 where unreadable. */
function peakRss(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${pid}/status`))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Starts a new peak RSS of `pid` from its current RSS (Linux; elsewhere a no-op). */
function resetPeak(pid: number): void {
  try {
    Deno.writeTextFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch {
    // Not Linux: the peak then covers the process's whole life.
  }
}

/** A GET of the Server API as JSON; throws on a non-2xx answer. */
async function getJson<T>(url: string, headers: Record<string, string>): Promise<T> {
  const res = await fetch(url, { headers });
  const body = await res.json();
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(body)}`);
  return body as T;
}

interface ListBody {
  submissions: { id: string }[];
  pagination: { total: number; truncated?: boolean };
}

/** Signs in as the loader's owner user through the login form; the session cookie. */
async function signIn(url: string): Promise<string> {
  const res = await fetch(`${url}/admin/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email: SCALE_USER, password: SCALE_PASSWORD }).toString(),
    redirect: "manual",
  });
  await res.body?.cancel();
  const cookie = res.headers.get("set-cookie")?.split(";")[0];
  if (res.status !== 303 || !cookie) throw new Error(`sign-in answered ${res.status}`);
  return cookie;
}

/** Streams the CSV export to its end: its data rows and seconds. */
async function exportCsv(url: string, cookie: string): Promise<{ rows: number; seconds: number }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { cookie } });
  if (!res.ok || !res.body) throw new Error(`CSV export answered ${res.status}`);
  let lines = 0;
  for await (const chunk of res.body) {
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
  }
  // The header is a line too; no value of the dataset holds a line break.
  return { rows: lines - 1, seconds: (performance.now() - t0) / 1000 };
}

/** Erases the address through the Server API and waits for the job: deleted and seconds. */
async function erase(
  url: string,
  auth: Record<string, string>,
): Promise<{ deleted: number; seconds: number }> {
  const t0 = performance.now();
  const res = await fetch(`${url}/api/v1/server/privacy/erase`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ email: ERASE_EMAIL }),
  });
  const started = await res.json();
  if (res.status !== 202) {
    throw new Error(`erase answered ${res.status}: ${JSON.stringify(started)}`);
  }
  for (;;) {
    const { job } = await getJson<{ job: { status: string; deleted: number } }>(
      `${url}/api/v1/server/privacy/jobs/${started.job.id}`,
      auth,
    );
    if (job.status === "done") {
      return { deleted: job.deleted, seconds: (performance.now() - t0) / 1000 };
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A row of one figure per unit (rows or submissions per second), as the table shows rates. */
function rateResult(count: number, seconds: number): WrkResult {
  return {
    requests: count,
    non2xx: 0,
    socketErrors: 0,
    seconds,
    rps: count / seconds,
    p50Ms: NaN,
    p99Ms: NaN,
  };
}

/** The search index's key families (lib/search/entries.ts): entries and counters. */
const SEARCH_FAMILIES = new Set<string>([
  keys.words("", "live")[0],
  keys.wordCounts("", "live")[0],
]);

function isSearchFamily(family: string): boolean {
  return SEARCH_FAMILIES.has(family);
}

/**
 * What the load wrote, as settings lines: time, KV mutations per submission with and without
 * the search index, disk per 1,000,000.
 */
export function loadLines(r: LoadReport): string[] {
  const n = r.stored;
  const per = (x: number) => (x / n).toFixed(2);
  const families = Object.entries(r.mutations).sort((a, b) => b[1] - a[1]);
  const all = families.reduce((s, [, x]) => s + x, 0);
  const search = families.filter(([f]) => isSearchFamily(f)).reduce((s, [, x]) => s + x, 0);
  const storedAll = Object.values(r.families).reduce((s, x) => s + x.bytes, 0);
  const storedSearch = Object.entries(r.families).filter(([f]) => isSearchFamily(f))
    .reduce((s, [, x]) => s + x.bytes, 0);
  const perMillion = (bytes: number) => `${(bytes / MB * 1_000_000 / n).toFixed(0)} MB`;
  return [
    `- Scale dataset (bench/scale.ts): ${grouped(n)} six-field submissions of one form over a ` +
    `year, written by bench/scale_load.ts in its own process through bench/seed.ts (record, ` +
    `number, status and email indexes, counters${search ? ", search index" : ""}; ` +
    `${grouped(r.commits)} commits) in ${r.seconds.toFixed(0)} s ` +
    `(${(n / r.seconds).toFixed(0)} submissions/s), then served by bench/scale_server.ts ` +
    `(its own process, as the other rows' server).`,
    `- Scale dataset, KV mutations per submission: ${per(all)} in all, ${per(all - search)} ` +
    `without the search index, ${per(search)} for it; by key family: ` +
    families.map(([f, x]) => `${f} ${per(x)}`).join(", ") + ".",
    `- Scale dataset, disk: KV file ${(r.fileBytes / MB).toFixed(0)} MB for ${grouped(n)} ` +
    `(${perMillion(r.fileBytes)} per 1,000,000), holding keys and values of ` +
    `${perMillion(storedAll)} per 1,000,000 (the rest: SQLite's page slack and its expiry ` +
    `index, which repeats each key), of which the search index's ${perMillion(storedSearch)}; ` +
    `by key family: ` +
    Object.entries(r.families).sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 8)
      .map(([f, x]) => `${f} ${perMillion(x.bytes)}`).join(", ") +
    ".",
  ];
}

/** Measures the scale rows at `n` submissions; the rows, their verdicts, settings lines. */
export async function scaleRows(o: {
  dir: string;
  n: number;
  /** Minutes the load may take. */
  minutes: number;
  seconds: number;
  warmSeconds: number;
  run: MeasureRun;
}): Promise<{ rows: Row[]; verdicts: Verdict[]; settings: string[] }> {
  const data = new ScaleDataset(o.n);
  const kvPath = `${o.dir}/scale.kv`;
  console.error(`scale: loading ${grouped(o.n)} submissions (${o.minutes} min at most)`);
  const loaded = await load(kvPath, o.n, o.minutes);
  console.error(`  loaded ${grouped(loaded.stored)} in ${loaded.seconds.toFixed(1)} s`);
  // The rows measure what was written, named so.
  const n = loaded.stored;
  const counts = data.counts(n);
  const stored = `(${grouped(n)} stored)`;
  const verdicts: Verdict[] = [{
    target: `scale dataset: ${grouped(o.n)} submissions written within ${o.minutes} min`,
    measured: `${grouped(n)} in ${loaded.seconds.toFixed(0)} s ` +
      `(${(n / loaded.seconds).toFixed(0)} submissions/s)`,
    pass: n === o.n,
  }];
  const server = await startServer(o.dir, kvPath);
  const rows: Row[] = [];
  try {
    const auth = { Authorization: `Bearer ${loaded.key}` };
    const listPath = (query: string) =>
      `/api/v1/server/forms/${loaded.formId}/submissions?limit=100&${query}`;
    const oneConnection = async (name: string, path: string, tag: string): Promise<Row> => {
      const req: WrkRequest = { method: "GET", path, headers: auth };
      await o.run(server.url, req, { seconds: o.warmSeconds, connections: 1, tag: `${tag}w` });
      resetPeak(server.pid);
      const result = await o.run(server.url, req, { seconds: o.seconds, connections: 1, tag });
      return { name, result, peakRssMb: peakRss(server.pid) / MB };
    };

    console.error(`list page 1 of 100 ${stored}`);
    const first = await getJson<ListBody>(`${server.url}${listPath("page=1")}`, auth);
    const list = await oneConnection(`list page 1 of 100 ${stored}`, listPath("page=1"), "sl");
    rows.push(list);
    verdicts.push({
      target: `list page 1 of 100 p50 < ${LIST_P50_MS} ms ${stored}`,
      measured: `p50 ${list.result!.p50Ms.toFixed(2)} ms, p99 ${list.result!.p99Ms.toFixed(2)} ` +
        `ms; total ${grouped(first.pagination.total)} of ${grouped(n)}`,
      pass: list.result!.p50Ms < LIST_P50_MS && list.result!.non2xx === 0 &&
        first.pagination.total === n,
    });

    const searches = [
      { label: "rare word", word: RARE_WORD, expected: counts.rare, ids: loaded.rareIds },
      { label: "common word", word: COMMON_WORD, expected: counts.common, ids: null },
    ];
    const found: string[] = [];
    let searchPass = true;
    for (const s of searches) {
      const name = `search ${stored}, ${s.label} (${grouped(s.expected)} matches)`;
      console.error(name);
      const path = listPath(`search=${encodeURIComponent(s.word)}`);
      const page = await getJson<ListBody>(`${server.url}${path}`, auth);
      const complete = page.pagination.total === s.expected &&
        (!s.ids || s.ids.every((id) => page.submissions.some((p) => p.id === id)));
      const row = await oneConnection(name, path, s.word[0]);
      rows.push(row);
      searchPass &&= complete && row.result!.p50Ms < SEARCH_P50_MS && row.result!.non2xx === 0;
      found.push(
        `${s.label} "${s.word}": p50 ${row.result!.p50Ms.toFixed(2)} ms, p99 ` +
          `${row.result!.p99Ms.toFixed(2)} ms, total ${grouped(page.pagination.total)} of ` +
          `${grouped(s.expected)}${complete ? "" : " (INCOMPLETE)"}`,
      );
    }
    verdicts.push({
      target: `search p50 < ${SEARCH_P50_MS} ms, rare and common word, first page, every match ` +
        `counted ${stored}`,
      measured: found.join("; "),
      pass: searchPass,
    });

    console.error(`CSV export ${stored}`);
    const cookie = await signIn(server.url);
    resetPeak(server.pid);
    const csv = await exportCsv(`${server.url}/admin/forms/${loaded.formId}/export.csv`, cookie);
    const csvRow: Row = {
      name: `CSV export ${stored}, rows/s`,
      result: rateResult(csv.rows, csv.seconds),
      peakRssMb: peakRss(server.pid) / MB,
    };
    rows.push(csvRow);
    verdicts.push({
      target: `CSV export of every submission, peak RSS < ${EXPORT_RSS_MB} MB ${stored}`,
      measured: `${grouped(csv.rows)} rows of ${grouped(n)} in ${csv.seconds.toFixed(1)} s ` +
        `(${csvRow.result!.rps.toFixed(0)} rows/s), server peak RSS ` +
        `${csvRow.peakRssMb!.toFixed(0)} MB`,
      pass: csv.rows === n && csvRow.peakRssMb! < EXPORT_RSS_MB,
    });

    console.error(`erase by email ${stored}`);
    resetPeak(server.pid);
    const erased = await erase(server.url, auth);
    const after = await getJson<ListBody>(`${server.url}${listPath("page=1")}`, auth);
    const eraseRow: Row = {
      name: `erase by email ${stored}, submissions/s`,
      result: rateResult(erased.deleted, erased.seconds),
      peakRssMb: peakRss(server.pid) / MB,
    };
    rows.push(eraseRow);
    verdicts.push({
      target: `erase by email removes every submission holding the address ${stored}`,
      measured: `${grouped(erased.deleted)} of ${grouped(counts.erased)} in ` +
        `${erased.seconds.toFixed(2)} s (request to job done); the list's total after: ` +
        `${grouped(after.pagination.total)} (expected ${grouped(n - counts.erased)})`,
      pass: erased.deleted === counts.erased &&
        after.pagination.total === n - counts.erased,
    });
  } finally {
    await server.close();
  }
  return { rows, verdicts, settings: loadLines(loaded) };
}

if (import.meta.main) {
  await ensureWrk();
  const dir = await Deno.makeTempDir({ prefix: "formwell-scale-" });
  try {
    const { rows, verdicts, settings } = await scaleRows({
      dir,
      n: scaleSize(),
      minutes: scaleMinutes(),
      seconds: 5,
      warmSeconds: 1,
      run: (url, req, opts) => runWrk(url, req, opts),
    });
    console.log(textTable(rows));
    console.log("");
    for (const line of [...verdictLines(verdicts), "", ...settings]) console.log(line);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
