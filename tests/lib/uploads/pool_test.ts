import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value } from "@/lib/kv/kv.ts";
import { GRANT_TTL_MS } from "@/lib/uploads/grants.ts";
import {
  checkPool,
  joinPool,
  leavePool,
  PENDING_POOL_BYTES,
  POOL_BUCKET_MS,
  poolBucketOf,
  type Pooled,
  poolKeys,
  sweepPools,
} from "@/lib/uploads/pool.ts";
import { testEnv } from "@/tests/helpers.ts";

/** A time 3 minutes into a counter's span. */
const T0 = 2_000_000 * POOL_BUCKET_MS + 3 * 60_000;

function grantAt(now: number, size: number, identity = "ip4:203.0.113.1"): Pooled {
  return {
    workspace_id: "ws_1",
    size_bytes: size,
    pending_identity: identity,
    pool_bucket: poolBucketOf(now + GRANT_TTL_MS),
  };
}

Deno.test("upload pool - the counters read at a time hold every grant issued then or earlier that still counts", () => {
  const read = poolKeys("ws_1", "ip4:203.0.113.1", T0, GRANT_TTL_MS);
  assert.equal(read.length, 7);
  const has = (g: Pooled) =>
    read.some((k) =>
      JSON.stringify(k) ===
        JSON.stringify(keys.uploadPool(g.pool_bucket!, "ws_1", g.pending_identity!))
    );
  // Issued now, and issued 59 minutes ago (due in a minute): both are read.
  assert.ok(has(grantAt(T0, 1)));
  assert.ok(has(grantAt(T0 - 59 * 60_000, 1)));
  // Issued 80 minutes ago: its counter ended, so it is not.
  assert.ok(!has(grantAt(T0 - 80 * 60_000, 1)));
});

Deno.test("upload pool - a grant leaves its counter once, and a counter that ended is left for the sweep", async () => {
  let now = T0;
  const env = await testEnv({}, { now: () => now });
  try {
    const kv = env.deps.kv;
    const a = grantAt(T0, 10);
    const b = grantAt(T0, 32);
    for (const g of [a, b]) {
      const op = kv.atomic();
      joinPool(op, g);
      assert.ok((await op.commit()).ok);
    }
    const key = keys.uploadPool(a.pool_bucket!, "ws_1", a.pending_identity!);
    const read = async () => u64Value((await kv.get(key)).value);
    assert.equal(await read(), 42);
    const leave = async (g: Pooled) => {
      const op = kv.atomic();
      leavePool(op, g, now);
      assert.ok((await op.commit()).ok);
    };
    await leave(a);
    assert.equal(await read(), 32);
    // Past the end of its span, the counter no longer counts and is not touched.
    now = a.pool_bucket! * POOL_BUCKET_MS;
    await leave(b);
    assert.equal(await read(), 32);
    // The sweep keeps it for an hour after its end, then deletes it.
    assert.equal(await sweepPools(env.deps), 0);
    now += 70 * 60_000;
    assert.equal(await sweepPools(env.deps), 1);
    assert.equal((await kv.get(key)).value, null);
    // A grant in no pool (a no-JS multipart upload) writes nothing.
    const op = kv.atomic();
    joinPool(op, { workspace_id: "ws_1", size_bytes: 5 });
    leavePool(op, { workspace_id: "ws_1", size_bytes: 5 }, now);
    assert.ok((await op.commit()).ok);
    assert.equal((await Array.fromAsync(kv.list({ prefix: keys.uploadPools() }))).length, 0);
  } finally {
    env.close();
  }
});

Deno.test("upload pool - the cap allows up to PENDING_POOL_BYTES in all", () => {
  const entry = (n: number) =>
    ({ key: ["k"], value: new Deno.KvU64(BigInt(n)), versionstamp: "1" }) as Deno.KvEntryMaybe<
      unknown
    >;
  const none = { key: ["k"], value: null, versionstamp: null } as Deno.KvEntryMaybe<unknown>;
  checkPool([entry(PENDING_POOL_BYTES - 10), none], 10);
  assert.throws(
    () => checkPool([entry(PENDING_POOL_BYTES - 10), entry(5)], 6),
    (e: { status?: number; code?: string }) => e.status === 429 && e.code === "quota_exceeded",
  );
});
