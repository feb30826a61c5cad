import assert from "node:assert/strict";
import { Batcher, CommitBudget, type Split } from "@/lib/kv/batcher.ts";

/** Packs items of one check each into an operation of at most `checks` checks. */
function byChecks(checks: number): (pending: number[]) => Split<number> {
  return (pending) => {
    const budget = new CommitBudget({ checks, items: 64 });
    const batch: number[] = [];
    const rest: number[] = [];
    for (const n of pending) {
      if (budget.fits(1, 0)) {
        batch.push(n);
        budget.add(1, 0);
      } else rest.push(n);
    }
    return { batch, rest };
  };
}

/**
 * Runs the writer's pattern: batch A takes item 0 and is held open while 1 to `gathered`
 * queue; once A ends, `late` more arrive on a timer that fires during a 4 ms linger.
 * Returns the batch sizes.
 */
async function scenario(take: (p: number[]) => Split<number>, gathered: number, late: number) {
  const sizes: number[] = [];
  let open!: () => void;
  const held = new Promise<void>((r) => (open = r));
  const batcher = new Batcher<number>({
    take,
    run: async (batch) => {
      sizes.push(batch.length);
      if (sizes.length === 1) await held;
    },
    failed: () => {},
    linger: { ms: 4, from: 4, until: 32 },
  });
  batcher.push(0);
  for (let i = 1; i <= gathered; i++) batcher.push(i);
  const pushedLate = new Promise<void>((resolve) =>
    setTimeout(() => {
      for (let i = 0; i < late; i++) batcher.push(100 + i);
      resolve();
    }, 0)
  );
  open();
  await pushedLate;
  await batcher.drained();
  return sizes;
}

Deno.test("batcher - lingers while the gathered items fit the next batch", async () => {
  // 5 items in room for 64: the late ones join the same batch.
  assert.deepEqual(await scenario(byChecks(64), 5, 5), [1, 10]);
});

Deno.test("batcher - a batch bounded by its limits, or too few waiting, goes at once", async () => {
  // 6 items in room for 5: no wait, so the late ones miss both batches (the first of them
  // finds the queue idle and goes alone; the other four wait for more, then follow).
  assert.deepEqual(await scenario(byChecks(5), 6, 5), [1, 5, 1, 1, 4]);
  // 3 gathered are too few to wait for, whatever the room.
  assert.deepEqual(await scenario(byChecks(64), 3, 2), [1, 3, 1, 1]);
});

Deno.test("batcher - runs at most `concurrency` batches and settles failures", async () => {
  let running = 0;
  let peak = 0;
  const failed: number[] = [];
  const batcher = new Batcher<number>({
    take: (p) => ({ batch: p.slice(0, 2), rest: p.slice(2) }),
    run: async (batch) => {
      peak = Math.max(peak, ++running);
      await new Promise((r) => setTimeout(r, 1));
      running--;
      if (batch.includes(3)) throw new Error("boom");
    },
    failed: (batch) => failed.push(...batch),
    concurrency: 2,
  });
  for (let i = 0; i < 9; i++) batcher.push(i);
  await batcher.drained();
  assert.equal(peak, 2);
  assert.deepEqual(failed.sort(), [2, 3]);
  assert.ok(batcher.idle);
});

Deno.test("commit budget - the first item always fits; limits bound the rest", () => {
  const b = new CommitBudget({ checks: 10, bytes: 100, items: 3, reserved: 2 });
  assert.ok(b.fits(50, 1_000));
  b.add(8, 10);
  assert.ok(!b.fits(1, 0));
  const c = new CommitBudget({ bytes: 100 });
  c.add(0, 60);
  assert.ok(!c.fits(0, 50));
  assert.ok(c.fits(0, 40));
});
