import assert from "node:assert/strict";
import type { Delivery } from "@/lib/notify/deliver.ts";
import { groupByEvent } from "@/lib/notify/delivery_log.ts";

let n = 0;
function attempt(event_id: string, outcome: Delivery["outcome"], more: Partial<Delivery> = {}) {
  n++;
  return {
    id: `dlv_${n}`,
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, 100 - n)).toISOString(),
    event_id,
    msg_id: event_id,
    event: "submission.created",
    attempt: 1,
    status: outcome === "delivered" ? 200 : 503,
    ok: outcome === "delivered",
    latency_ms: 3,
    response: "",
    outcome,
    ...more,
  } satisfies Delivery;
}

Deno.test("delivery log - events and their final state", async (t) => {
  await t.step("grouped by event, the newest event first, attempts newest first", () => {
    const log = [
      attempt("msg_b", "retrying", { next_attempt_at: "2026-01-01T00:05:00.000Z" }),
      attempt("msg_a", "delivered", { submission_id: "sub_1" }),
      attempt("msg_a", "retrying", { submission_id: "sub_1" }),
    ];
    const events = groupByEvent(log, true);
    assert.deepEqual(events.map((e) => [e.event_id, e.state, e.attempts.length]), [
      ["msg_b", "retrying", 1],
      ["msg_a", "delivered", 2],
    ]);
    assert.equal(events[0].next_attempt_at, "2026-01-01T00:05:00.000Z");
    assert.equal(events[1].submission_id, "sub_1");
    assert.equal(events[1].next_attempt_at, undefined);
  });
  await t.step("a failed resend neither undoes a success nor cancels a due retry", () => {
    const delivered = groupByEvent([
      attempt("msg_a", "failed", { manual: true }),
      attempt("msg_a", "delivered"),
    ], true);
    assert.equal(delivered[0].state, "delivered");
    const due = groupByEvent([
      attempt("msg_a", "failed", { manual: true }),
      attempt("msg_a", "retrying", { next_attempt_at: "2026-01-01T01:00:00.000Z" }),
    ], true);
    assert.deepEqual([due[0].state, due[0].next_attempt_at], [
      "retrying",
      "2026-01-01T01:00:00.000Z",
    ]);
  });
  await t.step("no retry left, or the endpoint disabled", () => {
    assert.equal(
      groupByEvent([attempt("m", "failed"), attempt("m", "retrying")], true)[0].state,
      "failed",
    );
    assert.equal(groupByEvent([attempt("m", "retrying")], false)[0].state, "disabled");
    assert.equal(groupByEvent([attempt("m", "disabled")], true)[0].state, "disabled");
  });
});
