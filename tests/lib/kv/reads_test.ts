import assert from "node:assert/strict";
import { KvReads } from "@/lib/kv/reads.ts";

/** An in-memory KV whose `getMany` calls are recorded (and can be made to fail). */
async function recordingKv() {
  const kv = await Deno.openKv(":memory:");
  const calls: Deno.KvKey[][] = [];
  let failing = false;
  const getMany = kv.getMany.bind(kv);
  kv.getMany = ((keys: Deno.KvKey[]) => {
    calls.push(keys);
    return failing ? Promise.reject(new Error("disk on fire")) : getMany(keys);
  }) as Deno.Kv["getMany"];
  return { kv, calls, fail: () => void (failing = true) };
}

Deno.test("kv reads - concurrent requests share getMany calls of at most ten keys", async () => {
  const { kv, calls } = await recordingKv();
  await kv.set(["form"], "the form");
  for (let i = 0; i < 30; i++) await kv.set(["idem", i], `record ${i}`);
  const reads = new KvReads(kv);
  // Each request: one key every request shares and two of its own.
  const results = await Promise.all(
    Array.from(
      { length: 30 },
      (_, i) => reads.getMany<[string, string, string]>([["form"], ["idem", i], ["missing", i]]),
    ),
  );
  results.forEach(([form, idem, missing], i) => {
    assert.equal(form.value, "the form");
    assert.equal(idem.value, `record ${i}`);
    assert.equal(missing.value, null);
  });
  assert.ok(calls.every((keys) => keys.length <= 10), "KV's limit of ten keys per getMany");
  // Each request's keys travel in one call (one consistent snapshot).
  for (let i = 0; i < 30; i++) {
    const holding = calls.filter((keys) => keys.some((k) => k[0] === "idem" && k[1] === i));
    assert.equal(holding.length, 1);
    assert.ok(holding[0].some((k) => k[0] === "missing" && k[1] === i));
  }
  // The first two go out alone (two reads in flight, nothing else queued yet); the shared
  // key is read once per call, so the other 28 go four to a call (nine keys), not three.
  assert.equal(calls.length, 2 + 28 / 4);
  kv.close();
});

Deno.test("kv reads - a request over ten keys is read whole, in chunks", async () => {
  const { kv, calls } = await recordingKv();
  for (let i = 0; i < 25; i++) await kv.set(["k", i], i);
  const reads = new KvReads(kv);
  const entries = await reads.getMany(Array.from({ length: 25 }, (_, i) => ["k", i]));
  assert.deepEqual(entries.map((e) => e.value), Array.from({ length: 25 }, (_, i) => i));
  assert.deepEqual(calls.map((c) => c.length), [10, 10, 5]);
  kv.close();
});

Deno.test("kv reads - a failed read rejects every request it carried, and later ones still run", async () => {
  const { kv, fail } = await recordingKv();
  await kv.set(["a"], 1);
  const reads = new KvReads(kv);
  assert.equal((await reads.get(["a"])).value, 1);
  fail();
  const settled = await Promise.allSettled([reads.get(["a"]), reads.get(["b"])]);
  assert.ok(settled.every((s) => s.status === "rejected"));
  kv.close();
});
