import assert from "node:assert/strict";
import { noiseWarning } from "../../bench/report.ts";

Deno.test("bench report - the ratio's verdict warns when the ceiling's rounds spread widely", () => {
  assert.equal(noiseWarning([6000, 6400, 5800]), "");
  const warning = noiseWarning([2611, 1926, 4697]);
  assert.match(warning, /differ 2\.4x/);
  assert.match(warning, /not a stable figure/);
  // At the threshold itself (1.3x) the rounds still count as steady.
  assert.equal(noiseWarning([1000, 1300]), "");
});
