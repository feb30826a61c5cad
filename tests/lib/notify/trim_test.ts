import assert from "node:assert/strict";
import { trimLog } from "@/lib/notify/capped_log.ts";

Deno.test("notify logs - a prune keeps exactly the newest entries; most writes skip it", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const prefix = ["log_test"];
    for (let i = 0; i < 250; i++) await kv.set([...prefix, String(i).padStart(4, "0")], i);
    const count = async () => {
      let n = 0;
      for await (const _ of kv.list({ prefix })) n++;
      return n;
    };
    await trimLog(kv, { prefix, keep: 100 }, () => 0.5);
    assert.equal(await count(), 250, "this write skipped the prune");
    await trimLog(kv, { prefix, keep: 100 }, () => 0);
    assert.equal(await count(), 100);
    const first = await kv.list<number>({ prefix }).next();
    assert.equal(first.value?.value, 150, "the oldest kept is the 151st written");
  } finally {
    kv.close();
  }
});
