import assert from "node:assert/strict";
import { parseHeyCsv } from "@/bench/hey.ts";

Deno.test("bench hey - parses hey's CSV into counts and percentiles", () => {
  const header =
    "response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset";
  const rows = Array.from(
    { length: 100 },
    (_, i) => `${((i + 1) / 1000).toFixed(4)},0.0001,0,0,0.001,0,${i === 7 ? 429 : 201},${i / 100}`,
  );
  const r = parseHeyCsv([header, ...rows, ""].join("\n"), 2);
  assert.equal(r.requests, 100);
  assert.equal(r.non2xx, 1);
  assert.equal(r.rps, 50);
  assert.equal(r.p50Ms, 51);
  assert.equal(r.p99Ms, 100);
});
