import assert from "node:assert/strict";

/**
 * Run as `deno run` (as the bench and the ceiling are: `deno test` runs tests off the main
 * thread): burns JavaScript CPU until /proc shows 50 ms more on the main thread, bounded by
 * wall time, and prints what the meter saw.
 */
const PROBE = `
import { CpuMeter, threadCpu } from "${new URL("../../bench/threads.ts", import.meta.url)}";
const mainNow = () => threadCpu(Deno.pid).get(Deno.pid).micros;
const before = mainNow();
const meter = new CpuMeter(Deno.pid);
meter.start();
const deadline = Date.now() + 20_000;
let x = 0;
while (mainNow() - before < 50_000 && Date.now() < deadline) {
  for (let i = 0; i < 1e6; i++) x += i % 7;
}
meter.stop();
console.log(JSON.stringify({ grew: Date.now() < deadline, per: meter.perRequest(10), none: meter.perRequest(0) ?? null, x }));
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
});
