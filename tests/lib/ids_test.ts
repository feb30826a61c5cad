import assert from "node:assert/strict";
import { newId, submissionIdAt } from "@/lib/ids.ts";

/** Crockford's base32 as ULIDs spell it, lower-cased as our ids are. */
const ULID = /^[0-9a-hjkmnp-tv-z]{26}$/;

Deno.test("newId gives distinct prefixed ULIDs that sort in creation order", () => {
  const ids = Array.from({ length: 2_000 }, () => newId("sub"));
  for (const id of ids) {
    assert.ok(id.startsWith("sub_"), id);
    assert.match(id.slice(4), ULID);
  }
  assert.equal(new Set(ids).size, ids.length);
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i], `${ids[i - 1]} < ${ids[i]}`);
});

Deno.test("submissionIdAt sorts by the given time and draws its random part uniformly", () => {
  const start = Date.UTC(2024, 0, 1);
  const ids = Array.from({ length: 4_000 }, (_, i) => submissionIdAt(start + i));
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i]);
  // Every random character takes each of the 32 values about equally often (125 each).
  for (const at of [14, 20, 29]) {
    const counts = new Map<string, number>();
    for (const id of ids) counts.set(id[at], (counts.get(id[at]) ?? 0) + 1);
    assert.equal(counts.size, 32, `position ${at}`);
    for (const [c, n] of counts) assert.ok(n > 60 && n < 200, `position ${at}: ${c} ${n} times`);
  }
});
