/**
 * `deno task soak`: the full reliability suite (not part of the default test run; the
 * short version is tests/soak_short_test.ts). Prints each scenario's figures and exits
 * non-zero when any of them shows a lost, duplicated or 5xx answer.
 * @module
 */
import { badInputSoak } from "@/bench/soak/bad_input.ts";
import { concurrencySoak } from "@/bench/soak/concurrency.ts";
import { crashSoak } from "@/bench/soak/crash.ts";
import { queueFaultSoak } from "@/bench/soak/queue_faults.ts";
import { type Figures, printFigures } from "@/bench/soak/store.ts";

/** The problems a scenario's figures show (empty when it passed). */
export function problems(f: Figures, expectTrue: string[], expectZero: string[] = []): string[] {
  const out: string[] = [];
  for (const k of ["lost", "duplicated", "5xx", ...expectZero]) {
    if (f[k] !== 0) out.push(`${k}=${f[k]}`);
  }
  for (const k of expectTrue) if (f[k] !== true) out.push(`${k}=${f[k]}`);
  return out;
}

async function main(): Promise<void> {
  const failed: string[] = [];
  const run = async (name: string, fn: () => Promise<Figures>, t: string[], z: string[]) => {
    const started = Date.now();
    console.error(`${name}: running`);
    const f = await fn();
    printFigures(name, { ...f, seconds: Math.round((Date.now() - started) / 1000) });
    const p = problems(f, t, z);
    if (p.length) failed.push(`${name}: ${p.join(", ")}`);
  };
  await run(
    "crash safety",
    () => crashSoak({ submissions: 5000, kills: 20, clients: 32 }),
    ["numbers_unique", "counter_equals_recount"],
    [
      "unexpected_4xx",
      "stored_unacknowledged",
      "unscored",
      "undelivered_jobs",
    ],
  );
  await run(
    "concurrency",
    () =>
      concurrencySoak({
        sameKey: 200,
        distinct: 100,
        spread: { requests: 400, forms: 8 },
        sustained: { clients: 32, ms: 10_000 },
      }),
    ["numbers_unique", "numbers_contiguous", "counter_equals_recount"],
    [],
  );
  await run(
    "bad input",
    () => badInputSoak({ inProcess: 20_000, realProcess: 2_000, seed: Date.now() % 1e9 }),
    ["healthy_after", "control_detected"],
    ["changed_keys"],
  );
  await run(
    "queue faults (KV's default retry schedule, about 2 minutes)",
    () => queueFaultSoak({ jobs: 20 }),
    ["landed_undelivered"],
    ["left_in_queue"],
  );
  if (failed.length) {
    console.error(`FAILED:\n  ${failed.join("\n  ")}`);
    Deno.exit(1);
  }
  console.log("soak: all scenarios passed");
}

if (import.meta.main) await main();
