/**
 * The disk's flush latency, for the results file. KV (SQLite) fsyncs its log once per
 * commit, so this time, more than CPU, bounds the ceiling's one commit per request, while
 * a group commit pays it once for many submissions. Where a flush is nearly free (a
 * virtual disk behind a write cache) the ceiling is high and the ratio to it low; where a
 * flush costs milliseconds the same code's ratio is several times higher.
 * @module
 */
import { median } from "./wrk.ts";

/** Flush latency in µs: median and 90th percentile. */
export interface FlushLatency {
  p50: number;
  p90: number;
}

/**
 * Appends 100 bytes and fsyncs, `samples` times, in a probe file in `dir` (the directory
 * the KV files live in), timing each append and flush together as SQLite's commit does.
 */
export async function flushLatency(dir: string, samples = 200): Promise<FlushLatency> {
  const path = `${dir}/flush-probe`;
  const line = new TextEncoder().encode(`${"x".repeat(99)}\n`);
  const times: number[] = [];
  const file = await Deno.open(path, { create: true, append: true });
  try {
    for (let i = 0; i < samples; i++) {
      const t = performance.now();
      await file.write(line);
      await file.sync();
      times.push((performance.now() - t) * 1000);
    }
  } finally {
    file.close();
    await Deno.remove(path);
  }
  times.sort((a, b) => a - b);
  return { p50: median(times), p90: times[Math.floor(times.length * 0.9)] };
}
