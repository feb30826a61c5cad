import assert from "node:assert/strict";
import { LimitBudgets } from "@/lib/ratelimit/budgets.ts";

Deno.test("limit budgets - holders of a budget take turns, in arrival order", async () => {
  const budgets = new LimitBudgets();
  const log: string[] = [];
  const holder = async (name: string, ids: string[]) => {
    const release = await budgets.acquire(ids);
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
  assert.equal(budgets.locked, 0, "the last holder leaves nothing behind");
});

Deno.test("limit budgets - holders naming budgets in opposite orders never deadlock", async () => {
  const budgets = new LimitBudgets();
  const first = await budgets.acquire(["p"]);
  const order: string[] = [];
  const holder = async (name: string, ids: string[]) => {
    const release = await budgets.acquire(ids);
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
  assert.equal(budgets.locked, 0);
});

Deno.test("limit budgets - remembers what a commit left, forgets on request", () => {
  const budgets = new LimitBudgets();
  const entry = { key: ["rate_limit", "schema", "ip:1"], value: { tat: 5 }, versionstamp: "01" };
  budgets.remember({
    allowed: [true],
    states: new Map([["a", { entry, next: { tat: 9 } }], ["b", { entry }]]),
  }, "02");
  assert.deepEqual(budgets.known("a"), { key: entry.key, value: { tat: 9 }, versionstamp: "02" });
  // A budget the commit only checked keeps the entry it was read at.
  assert.equal(budgets.known("b"), entry);
  budgets.forget(["a"]);
  assert.equal(budgets.known("a"), undefined);
  assert.equal(budgets.known("b"), entry);
});
