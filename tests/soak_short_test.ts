/**
 * The short reliability suite (the full one is `deno task soak`): crash safety under
 * SIGKILL, two processes on one KV file, generated bad input, and queue faults. Each step
 * prints its figures; every figure that shows a loss, a duplicate or a 5xx fails it.
 */
import assert from "node:assert/strict";
import { badInputSoak } from "@/bench/soak/bad_input.ts";
import { concurrencySoak } from "@/bench/soak/concurrency.ts";
import { crashSoak } from "@/bench/soak/crash.ts";
import { queueFaultSoak } from "@/bench/soak/queue_faults.ts";
import { printFigures } from "@/bench/soak/store.ts";

Deno.test("soak - short reliability suite", async (t) => {
  await t.step("crash safety: kill -9 during a retried submission load", async () => {
    const f = await crashSoak({ submissions: 300, kills: 3, clients: 16 });
    printFigures("crash safety", f);
    assert.equal(f.acknowledged, 300, "every submission is eventually acknowledged");
    assert.equal(f.lost, 0, "no acknowledged submission is missing");
    assert.equal(f.duplicated, 0, "no submission is stored twice");
    assert.equal(f.stored, 300);
    assert.equal(f.stored_unacknowledged, 0);
    assert.equal(f["5xx"], 0);
    assert.equal(f.unexpected_4xx, 0);
    assert.equal(f.numbers_unique, true);
    assert.equal(f.counter_equals_recount, true);
    assert.ok(Number(f.network_errors) > 0, "the kills really cut requests off");
    assert.equal(f.unscored, 0, "every submission was stored with its verdict");
    assert.equal(f.undelivered_jobs, 0);
  });

  await t.step(
    "concurrency: same-key, distinct, spread over forms, sustained; two processes",
    async () => {
      const f = await concurrencySoak({
        sameKey: 200,
        distinct: 100,
        spread: { requests: 200, forms: 4 },
        sustained: { clients: 32, ms: 3_000 },
      });
      printFigures("concurrency", f);
      assert.equal(f["5xx"], 0);
      assert.equal(f.acknowledged, f.requests, "every request got its 201");
      assert.equal(f.same_key_distinct_ids, 1, "one key, one submission id");
      assert.equal(f.distinct_ids, 100);
      assert.equal(f.spread_ids, 200);
      assert.ok(Number(f.sustained_requests) > 500, "the sustained phase really loaded both");
      assert.equal(f.sustained_acknowledged, f.sustained_requests);
      assert.equal(f.stored, 301 + Number(f.sustained_requests));
      assert.equal(f.lost, 0);
      assert.equal(f.duplicated, 0);
      assert.equal(f.numbers_unique, true);
      assert.equal(f.numbers_contiguous, true);
      assert.equal(f.counter_equals_recount, true);
    },
  );

  await t.step("bad input: generated malformed requests never 5xx, never store", async () => {
    const f = await badInputSoak({ inProcess: 3_000, realProcess: 300, seed: 8 });
    printFigures("bad input", f);
    assert.ok(f.requests >= 3_300);
    assert.equal(f["5xx"], 0);
    assert.equal(f.changed_keys, 0, "no stored data changed");
    assert.equal(f.control_detected, true, "a valid submission does show up in the comparison");
    assert.equal(f.healthy_after, true, "the real process still serves after raw garbage");
  });

  await t.step("queue faults: retries end undelivered; killed jobs are redelivered", async () => {
    const f = await queueFaultSoak({ backoffSchedule: [20, 20, 20], jobs: 5, scored: 40 });
    printFigures("queue faults", f);
    assert.equal(f.throwing_attempts, f.throwing_expected_attempts, "retried on the schedule");
    assert.equal(f.landed_undelivered, true, "kept under the keysIfUndelivered key");
    assert.ok(Number(f.in_flight_at_kill) > 0, "the kill found jobs in flight");
    assert.ok(Number(f.redelivered_after_restart) >= Number(f.in_flight_at_kill));
    assert.equal(f.finished_after_restart, 5);
    assert.equal(f.left_in_queue, 0);
    assert.equal(f.lost, 0);
    // Scoring jobs held by the killed worker: redelivered, every submission scored once.
    assert.ok(Number(f.scoring_jobs) < 40, "one scoring job per group commit");
    assert.ok(Number(f.scoring_in_flight_at_kill) > 0, "the kill found scoring jobs in flight");
    assert.ok(Number(f.scoring_redelivered) >= 1);
    assert.equal(f.scoring_scored_once, 40);
    assert.equal(f.scoring_scored_more_than_once, 0);
    assert.equal(f.scoring_unscored, 0);
    assert.equal(f.scoring_left_in_queue, 0);
    assert.equal(f.duplicated, 0);
  });
});
