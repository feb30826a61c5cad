import assert from "node:assert/strict";
import { parseCpuLine } from "@/bench/threads.ts";

/**
 * Run as `deno run` (as the bench and the ceiling are: `deno test` runs tests off the main
 * thread): burns JavaScript CPU until /proc shows 50 ms more on the main thread, bounded by
 * wall time, and prints what the meter saw.
 */
const PROBE = `
import { CpuMeter, threadCpu } from "${new URL("../../bench/threads.ts", import.meta.url)}";
const mainNow = () => threadCpu(Deno.pid).get(Deno.pid).micros;
const meter = new CpuMeter(Deno.pid);
meter.start();
// Read after the meter's own start: every tick the loop waits for is inside its window.
const before = mainNow();
const deadline = Date.now() + 20_000;
let x = 0;
while (mainNow() - before < 50_000 && Date.now() < deadline) {
  for (let i = 0; i < 1e6; i++) x += i % 7;
}
meter.stop();
console.log(JSON.stringify({ grew: Date.now() < deadline, per: meter.perRequest(10), none: meter.perRequest(0) ?? null, steal: meter.stealShare(), x }));
`;

Deno.test("bench threads - a deno run process's JavaScript CPU is counted on its main thread", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
    env: { NO_COLOR: "1" },
  }).spawn();
  const writer = out.stdin.getWriter();
  await writer.write(new TextEncoder().encode(PROBE));
  await writer.close();
  const { success, stdout } = await out.output();
  assert.ok(success);
  const seen = JSON.parse(new TextDecoder().decode(stdout));
  assert.equal(seen.grew, true, "the main thread's CPU time never grew");
  assert.ok(seen.per.main >= 5_000, `${seen.per.main} µs per request of 10`);
  assert.equal(seen.none, null);
  // The host's steal over the same run: a share of the machine's time, read from /proc/stat.
  assert.ok(seen.steal >= 0 && seen.steal < 1, String(seen.steal));
});

Deno.test("bench threads - /proc/stat's cpu line gives the machine's total and stolen ticks", () => {
  const line =
    "cpu  1930327 16272 383029 3574490 74125 0 68611 172022 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";
  // user + nice + system + idle + iowait + irq + softirq + steal; guest is inside user.
  assert.deepEqual(parseCpuLine(line), {
    total: 1930327 + 16272 + 383029 + 3574490 + 74125 + 0 + 68611 + 172022,
    steal: 172022,
  });
  assert.equal(parseCpuLine("cpu0 1 2 3 4 5 6 7 8"), null, "a single core's line is not the total");
  assert.equal(parseCpuLine("cpu  1 2 3"), null, "too few fields");
  assert.equal(parseCpuLine("intr 1 2 3 4 5 6 7 8"), null);
});
