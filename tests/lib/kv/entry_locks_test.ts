import assert from "node:assert/strict";
import { EntryLockTable } from "@/lib/kv/entry_locks.ts";
import { rememberSpends } from "@/lib/ratelimit/budgets.ts";

Deno.test("entry locks - holders of an entry take turns, in arrival order", async () => {
  const locks = new EntryLockTable();
  const log: string[] = [];
  const holder = async (name: string, ids: string[]) => {
    const release = await locks.acquire(ids);
    log.push(`${name} in`);
    // Yield a few times while holding, as a commit would.
    for (let i = 0; i < 3; i++) await Promise.resolve();
    log.push(`${name} out`);
    release();
  };
  await Promise.all([holder("a", ["x"]), holder("b", ["x"]), holder("c", ["y"])]);
  // b waited for a; c, on another budget, did not wait for either.
  assert.deepEqual(log.filter((l) => l.startsWith("a") || l.startsWith("b")), [
    "a in",
    "a out",
    "b in",
    "b out",
  ]);
  assert.ok(log.indexOf("c in") < log.indexOf("a out"), log.join(", "));
  assert.equal(locks.locked, 0, "the last holder leaves nothing behind");
});

Deno.test("entry locks - holders naming entries in opposite orders never deadlock", async () => {
  const locks = new EntryLockTable();
  const first = await locks.acquire(["p"]);
  const order: string[] = [];
  const holder = async (name: string, ids: string[]) => {
    const release = await locks.acquire(ids);
    order.push(name);
    await new Promise((r) => setTimeout(r, 1));
    release();
  };
  // One waits for p (holding nothing yet); the other names q first. Taken as named, the
  // second would hold q and wait for p while the first, given p, waited for q: forever.
  const waiting = [holder("p then q", ["p", "q"]), holder("q then p", ["q", "p"])];
  first();
  await Promise.all(waiting);
  assert.deepEqual(order, ["p then q", "q then p"]);
  assert.equal(locks.locked, 0);
});

Deno.test("entry locks - remember what a spending commit left, forget on request", () => {
  const locks = new EntryLockTable();
  const entry = { key: ["rate_limit", "schema", "ip:1"], value: { tat: 5 }, versionstamp: "01" };
  rememberSpends(locks, {
    allowed: [true],
    states: new Map([["a", { entry, next: { tat: 9 } }], ["b", { entry }]]),
  }, "02");
  assert.deepEqual(locks.known("a"), { key: entry.key, value: { tat: 9 }, versionstamp: "02" });
  // A budget the commit only checked keeps the entry it was read at.
  assert.equal(locks.known("b"), entry);
  locks.forget(["a"]);
  assert.equal(locks.known("a"), undefined);
  assert.equal(locks.known("b"), entry);
});
