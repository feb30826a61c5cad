import assert from "node:assert/strict";
import { markRemote } from "@/lib/kv/batcher.ts";
import { EntryLockTable } from "@/lib/kv/entry_locks.ts";
import { LimitSpends } from "@/lib/ratelimit/spends.ts";
import { AppError } from "@/lib/errors.ts";
import { limitKey, type LimitSpend } from "@/lib/ratelimit/rate_limit.ts";

/** An in-memory KV whose commits are recorded with their check counts. */
async function recordingKv() {
  const kv = await Deno.openKv(":memory:");
  const commits: { checks: number; ok: boolean }[] = [];
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    let checks = 0;
    const check = op.check.bind(op);
    op.check = (...entries) => {
      checks += entries.length;
      return check(...entries);
    };
    const commit = op.commit.bind(op);
    op.commit = async () => {
      const res = await commit();
      commits.push({ checks, ok: res.ok });
      return res;
    };
    return op;
  };
  return { kv, commits };
}

const spendOf = (identity: string, perMinute: number): LimitSpend => ({
  route: "schema",
  identity,
  perMinute,
});

Deno.test("limit spends - concurrent spends of one budget: exactly the limit passes, in two commits", async () => {
  const { kv, commits } = await recordingKv();
  const limits = new LimitSpends({ kv, now: Date.now, entryLocks: new EntryLockTable() });
  const results = await Promise.all(
    Array.from({ length: 100 }, () => limits.spend(spendOf("ip:192.0.2.1", 30))),
  );
  assert.equal(results.filter(Boolean).length, 30);
  // Refusals come after the budget ran out, never before: spends are taken in order.
  assert.ok(results.slice(0, 30).every(Boolean) && !results.slice(30).some(Boolean));
  // The first spend goes out alone; the 99 that queued meanwhile share the second commit.
  assert.deepEqual(commits, [{ checks: 1, ok: true }, { checks: 1, ok: true }]);
  // The budget stays spent for the next caller.
  assert.equal(await limits.spend(spendOf("ip:192.0.2.1", 30)), false);
  kv.close();
});

/** Spends `n` budgets at once; returns the check counts of the commits they made. */
async function spendMany(n: number, remote: boolean): Promise<number[]> {
  const { kv, commits } = await recordingKv();
  if (remote) markRemote(kv);
  const limits = new LimitSpends({ kv, now: Date.now, entryLocks: new EntryLockTable() });
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) => limits.spend(spendOf(`ip:198.51.${i >> 8}.${i & 255}`, 5))),
  );
  assert.ok(results.every(Boolean));
  assert.ok(commits.every((c) => c.ok));
  assert.equal(limits.stats.spends, n);
  kv.close();
  return commits.map((c) => c.checks);
}

Deno.test("limit spends - a local store takes up to 100 budgets per commit; every spend is settled", async () => {
  // 1 alone, then 249 budgets in commits of 100, 100 and 49 (read ten keys at a time).
  assert.deepEqual(await spendMany(250, false), [1, 100, 100, 49]);
});

Deno.test("limit spends - a remote store (KV Connect, Deploy) takes at most ten budgets per commit", async () => {
  assert.deepEqual(await spendMany(25, true), [1, 10, 10, 4]);
});

Deno.test("limit spends - a budget spent elsewhere between read and commit is read again", async () => {
  const kv = await Deno.openKv(":memory:");
  const spend = spendOf("ws:other-process", 5);
  const now = Date.now();
  // Another instance spends the whole budget right after our read: our commit's check
  // fails, and the retry must see the budget gone instead of trusting the first read.
  const getMany = kv.getMany.bind(kv);
  let reads = 0;
  kv.getMany = (async (keys: Deno.KvKey[]) => {
    const entries = await getMany(keys);
    if (reads++ === 0) await kv.set(limitKey(spend), { tat: now + 60_000 });
    return entries;
  }) as Deno.Kv["getMany"];
  const limits = new LimitSpends({ kv, now: () => now, entryLocks: new EntryLockTable() });
  assert.equal(await limits.spend(spend), false);
  assert.equal(reads, 2);
  assert.equal(limits.stats.commits, 0);
  kv.close();
});

Deno.test("limit spends - a failing KV rejects the batch it carried, and later spends still run", async () => {
  const kv = await Deno.openKv(":memory:");
  const getMany = kv.getMany.bind(kv);
  let failing = true;
  kv.getMany =
    ((keys: Deno.KvKey[]) =>
      failing ? Promise.reject(new Error("disk on fire")) : getMany(keys)) as Deno.Kv["getMany"];
  const limits = new LimitSpends({ kv, now: Date.now, entryLocks: new EntryLockTable() });
  await assert.rejects(limits.spend(spendOf("ip:192.0.2.9", 5)), /disk on fire/);
  failing = false;
  assert.equal(await limits.spend(spendOf("ip:192.0.2.9", 5)), true);
  kv.close();
});

Deno.test("limit spends - a budget that keeps conflicting ends in 503 unavailable, bounded", async () => {
  const kv = await Deno.openKv(":memory:");
  const spend = spendOf("ws:always-contended", 1000);
  const getMany = kv.getMany.bind(kv);
  let reads = 0;
  kv.getMany = (async (keys: Deno.KvKey[]) => {
    const entries = await getMany(keys);
    reads++;
    await kv.set(limitKey(spend), { tat: 0 }); // moves the versionstamp every time
    return entries;
  }) as Deno.Kv["getMany"];
  const limits = new LimitSpends({ kv, now: Date.now, entryLocks: new EntryLockTable() });
  await assert.rejects(
    limits.spend(spend),
    (err) => err instanceof AppError && err.status === 503,
  );
  assert.equal(reads, 20);
  kv.close();
});
