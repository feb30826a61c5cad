import assert from "node:assert/strict";
import { cpuLines, noiseWarning } from "@/bench/report.ts";

Deno.test("bench report - the ratio's verdict warns when the floor's rounds spread widely", () => {
  assert.equal(noiseWarning([6000, 6400, 5800]), "");
  const warning = noiseWarning([2611, 1926, 4697]);
  assert.match(warning, /differ 2\.4x/);
  assert.match(warning, /not a stable figure/);
  // At the threshold itself (1.3x) the rounds still count as steady.
  assert.equal(noiseWarning([1000, 1300]), "");
});

Deno.test("bench report - the ratio's verdict warns when the host stole much of the CPU", () => {
  assert.equal(noiseWarning([6000, 6400, 5800], 0.04), "");
  const stolen = noiseWarning([6000, 6400, 5800], 0.257);
  assert.match(stolen, /the host stole 26% of the machine's CPU time in them/);
  assert.match(stolen, /not a stable figure/);
  // Both reasons, when both hold.
  assert.match(noiseWarning([2611, 1926, 4697], 0.3), /differ 2\.4x; the host stole 30%/);
});

Deno.test("bench report - a row's CPU line states the host's steal when it was measured", () => {
  const cpu = { main: 250, kv: 100, v8: 40, other: 0 };
  const [withSteal, without] = cpuLines([
    { name: "JSON submit", cpu, steal: 0.123 },
    { name: "schema fetch", cpu },
  ]);
  assert.match(
    withSteal,
    /^JSON submit: 390 µs CPU per request: main thread 250 \(caps it at 4000/,
  );
  assert.match(withSteal, /the host stole 12\.3% of the machine's CPU time meanwhile$/);
  assert.doesNotMatch(without, /stole/);
});
