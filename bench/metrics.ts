/**
 * `deno task bench --metrics`: JSON submit with `METRICS_TOKEN` set against the same row
 * with it unset, in alternating rounds (two in-process servers, each on its own KV file;
 * Prometheus scrapes the metrics-on one after each of its rounds). The ratio is the median
 * of the rounds' on/off ratios; the target is within 5%.
 * @module
 */
import { createFixtures, sixFieldData } from "./fixtures.ts";
import type { Row, Verdict } from "./report.ts";
import { type BenchServer, startFormwell } from "./server.ts";
import { combineRuns, median, type WrkRequest, type WrkResult } from "./wrk.ts";

/** The bench token of the metrics-on server. */
const TOKEN = "bench-metrics-token-0123456789";

/** How the caller measures: one run of `req` against `url` (disk flushed, CPU counted). */
export type MeasureRun = (
  url: string,
  req: WrkRequest,
  opts: { seconds: number; connections: number; tag: string },
) => Promise<WrkResult>;

/** Measures JSON submit with metrics on against `off` (the metrics-off server's request). */
export async function metricsOnOff(o: {
  dir: string;
  off: { url: string; req: WrkRequest };
  rounds: number;
  seconds: number;
  warmSeconds: number;
  connections: number;
  run: MeasureRun;
}): Promise<{ row: Row; verdict: Verdict }> {
  let on: BenchServer | null = null;
  try {
    const server = await startFormwell(o.dir, `${o.dir}/metrics-on.kv`, { METRICS_TOKEN: TOKEN });
    on = server;
    const fx = await createFixtures(server.deps);
    const req: WrkRequest = {
      ...o.off.req,
      path: `/api/v1/submit/p/${fx.jsonForm.id}`,
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${fx.key}` },
      body: JSON.stringify({ data: sixFieldData() }),
    };
    const opts = (tag: string, seconds = o.seconds) => ({
      seconds,
      connections: o.connections,
      tag,
    });
    await o.run(server.url, req, opts("mw", o.warmSeconds));
    const onRuns: WrkResult[] = [];
    const offRuns: WrkResult[] = [];
    for (let i = 0; i < o.rounds; i++) {
      offRuns.push(await o.run(o.off.url, o.off.req, opts(`mf${i}`)));
      onRuns.push(await o.run(server.url, req, opts(`mo${i}`)));
      await scrape(server.url);
    }
    const ratio = median(onRuns.map((r, i) => r.rps / offRuns[i].rps));
    return {
      row: {
        name: "JSON submit, METRICS_TOKEN set (ratio: to unset, same rounds)",
        result: combineRuns(onRuns),
        runs: onRuns,
        ratio,
      },
      verdict: {
        target: "JSON submit with metrics on within 5% of metrics off (same rounds)",
        measured: `median of ${o.rounds} rounds ` +
          onRuns.map((r, i) => `${r.rps.toFixed(0)}/${offRuns[i].rps.toFixed(0)}`).join(", ") +
          ` req/s = ${ratio.toFixed(3)}`,
        pass: ratio >= 0.95,
      },
    };
  } finally {
    await on?.close();
  }
}

async function scrape(url: string): Promise<void> {
  const res = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  const text = await res.text();
  if (!res.ok || !text.includes("formwell_submissions_total")) {
    throw new Error(`/metrics answered ${res.status}`);
  }
}
