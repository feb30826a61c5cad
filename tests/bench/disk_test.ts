import assert from "node:assert/strict";
import { flushLatency } from "@/bench/disk.ts";

Deno.test("bench disk - flush latency is measured in the given directory and leaves nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { p50, p90 } = await flushLatency(dir, 20);
    assert.ok(Number.isFinite(p50) && p50 > 0, `p50 ${p50}`);
    assert.ok(p90 >= p50, `p90 ${p90} < p50 ${p50}`);
    assert.deepEqual([...Deno.readDirSync(dir)], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bench disk - a directory that does not exist is an error, not a figure", async () => {
  await assert.rejects(flushLatency("/nonexistent-formwell-dir", 5), Deno.errors.NotFound);
});
