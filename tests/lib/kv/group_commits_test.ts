import assert from "node:assert/strict";
import { MAX_VALUE_BYTES } from "@/lib/kv/batcher.ts";
import { GroupCommits } from "@/lib/kv/group_commits.ts";

/** A write of `key` that must be new (as an upload grant's path). */
function create(key: Deno.KvKey, value: unknown) {
  return {
    checks: 1,
    bytes: MAX_VALUE_BYTES,
    apply: (op: Deno.AtomicOperation) => {
      op.check({ key, versionstamp: null }).set(key, value);
    },
  };
}

Deno.test("group commits - concurrent writes share commits, within KV's checks and bytes", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const commits = new GroupCommits(kv);
    let biggest = 0;
    const atomic = kv.atomic.bind(kv);
    kv.atomic = () => {
      const op = atomic();
      const check = op.check.bind(op);
      let checks = 0;
      op.check = (...c) => (biggest = Math.max(biggest, checks += c.length), check(...c));
      return op;
    };
    await Promise.all(Array.from({ length: 25 }, (_, i) => commits.commit(create(["g", i], i))));
    for (let i = 0; i < 25; i++) assert.equal((await kv.get(["g", i])).value, i);
    assert.equal(commits.stats.writes, 25);
    assert.ok(commits.stats.commits < 25, `${commits.stats.commits} commits`);
    // 64 KiB a write: at most 9 fit the 600 KiB an operation takes.
    assert.ok(biggest > 1 && biggest <= 9, `${biggest} checks in one operation`);
  } finally {
    kv.close();
  }
});

/**
 * Commits three good writes and `bad` together; only `bad` is rejected, `badKey` keeps
 * `kept`, and the good ones are stored.
 */
async function failsAlone(
  prepare: (kv: Deno.Kv) => Promise<unknown>,
  bad: ReturnType<typeof create>,
  badKey: Deno.KvKey,
  kept: unknown,
) {
  const kv = await Deno.openKv(":memory:");
  try {
    await prepare(kv);
    const commits = new GroupCommits(kv);
    const results = await Promise.allSettled([
      commits.commit(create(["g", 1], 1)),
      commits.commit(create(["g", 2], 2)),
      commits.commit(bad),
      commits.commit(create(["g", 3], 3)),
    ]);
    assert.deepEqual(results.map((r) => r.status), [
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    assert.equal((await kv.get(badKey)).value, kept);
    for (const i of [1, 2, 3]) assert.equal((await kv.get(["g", i])).value, i);
  } finally {
    kv.close();
  }
}

Deno.test("group commits - a write whose check fails fails alone", async () => {
  const key = ["g", "taken"];
  await failsAlone((kv) => kv.set(key, "first"), create(key, "second"), key, "first");
});

Deno.test("group commits - a write KV refuses fails alone", async () => {
  const key = ["g", "big"];
  const tooBig = "x".repeat(70 * 1024); // over KV's 64 KiB a value
  await failsAlone(() => Promise.resolve(), create(key, tooBig), key, null);
});
