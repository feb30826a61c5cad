/**
 * The outbox's logic with a memory store, a scripted fetch and a manual clock: kept before
 * the first attempt, announced `queued` once, sent with the same key when the service
 * answers again, `restored` for what an earlier page left, removed on a final answer.
 */
import assert from "node:assert/strict";
import { Formwell, type FormwellError, type OutboxEvent } from "@/sdk/mod.ts";
import { memoryStore } from "@/sdk/src/stores.ts";
import type { Job } from "@/sdk/src/submit.ts";
import { type Answer, json, manualClock, scriptedFetch, testRuntime } from "./fakes.ts";

const CREATED = { success: true, submission_id: "sub_1", submission_number: 1 };

function setup(script: (n: number) => Answer) {
  const { fetch, sent } = scriptedFetch((_r, n) => script(n));
  const clock = manualClock();
  const store = memoryStore();
  const events: OutboxEvent[] = [];
  const make = () => {
    const fw = new Formwell({
      baseUrl: "https://forms.test",
      outbox: true,
      store,
      runtime: testRuntime(fetch, clock),
      retry: { attempts: 2, baseMs: 100, capMs: 800 },
    });
    fw.on((e) => events.push(e));
    return fw;
  };
  return { sent, clock, store, events, make };
}

Deno.test("sdk outbox - unreachable: kept, queued once, then sent with the same key", async () => {
  let up = false;
  const s = setup(() => up ? json(201, CREATED) : "network");
  const fw = s.make();
  let result: unknown;
  const p = fw.submit("fAbc", { name: "Ada" }).then((r) => result = r);
  await s.clock.runUntil(() => s.events.length === 1);
  assert.equal(s.events[0].type, "queued");
  assert.equal(s.events[0].restored, false);
  assert.equal((await s.store.list()).length, 1, "kept in the store");
  assert.equal((await fw.queued())[0].id, "key-1");
  // More failed rounds announce nothing more; the outbox keeps backing off.
  await s.clock.runUntil(() => s.sent.length >= 6);
  assert.equal(s.events.length, 1);
  up = true;
  await s.clock.runUntil(() => result !== undefined);
  await p;
  assert.deepEqual(result, { submission_id: "sub_1", submission_number: 1 });
  assert.deepEqual(s.events.map((e) => e.type), ["queued", "sent"]);
  assert.deepEqual(
    new Set(s.sent.map((r) => r.headers["idempotency-key"])),
    new Set(["key-1"]),
  );
  assert.deepEqual(await s.store.list(), [], "removed once stored");
});

Deno.test("sdk outbox - what an earlier page left is sent by the next Formwell", async () => {
  const s = setup(() => json(201, CREATED));
  const earlier: Job = {
    id: "key-from-yesterday",
    baseUrl: "https://forms.test",
    publicId: "fAbc",
    data: { name: "Ada" },
    files: {},
    refs: {},
    createdAt: 1,
    attempts: 3,
  };
  await s.store.put(earlier);
  await s.store.put({
    ...earlier,
    id: "other-site",
    baseUrl: "https://other.test",
  });
  s.make();
  await s.clock.runUntil(() => s.events.length === 1);
  assert.equal(s.events[0].type, "sent");
  assert.equal(s.events[0].restored, true);
  assert.equal(s.events[0].id, "key-from-yesterday");
  assert.equal(s.sent.length, 1);
  assert.equal(s.sent[0].headers["idempotency-key"], "key-from-yesterday");
  assert.deepEqual(
    (await s.store.list()).map((j) => j.id),
    ["other-site"],
    "other base URLs wait",
  );
});

Deno.test("sdk outbox - a final answer removes the job and fails the submit", async () => {
  const s = setup((n) =>
    n === 0 ? "network" : json(422, {
      error: "invalid",
      code: "validation_failed",
      errors: [{
        field: "email",
        fieldId: "fld_email",
        message: "Email is required.",
        type: "required",
      }],
    })
  );
  const fw = s.make();
  let error: FormwellError | undefined;
  const p = fw.submit("fAbc", { name: "Ada" }).catch((e) => error = e);
  await s.clock.runUntil(() => error !== undefined);
  await p;
  assert.equal(error!.status, 422);
  assert.deepEqual(error!.fieldErrors, { email: "Email is required." });
  assert.deepEqual(
    s.events.map((e) => e.type),
    ["failed"],
    "a retry inside the call is no queueing",
  );
  assert.deepEqual(await s.store.list(), []);
});

Deno.test("sdk outbox - aborting a queued submit removes it and rejects", async () => {
  const s = setup(() => "network");
  const fw = s.make();
  const ctl = new AbortController();
  let error: FormwellError | undefined;
  const p = fw.submit("fAbc", { a: 1 }, { signal: ctl.signal }).catch((e) => error = e);
  await s.clock.runUntil(() => s.events.length === 1);
  ctl.abort();
  await s.clock.runUntil(() => error !== undefined);
  await p;
  assert.equal(error!.code, "aborted");
  assert.deepEqual(await s.store.list(), []);
});

Deno.test("sdk outbox - without an outbox an unreachable service rejects after the retries", async () => {
  const { fetch, sent } = scriptedFetch(() => "network");
  const clock = manualClock();
  const fw = new Formwell({
    baseUrl: "https://forms.test",
    runtime: testRuntime(fetch, clock),
    retry: { attempts: 3 },
  });
  let error: FormwellError | undefined;
  const p = fw.submit("fAbc", { a: 1 }).catch((e) => error = e);
  await clock.runUntil(() => error !== undefined);
  await p;
  assert.equal(error!.code, "network_error");
  assert.equal(error!.status, 0);
  assert.equal(sent.length, 3);
});
