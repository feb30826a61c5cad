import assert from "node:assert/strict";
import { backoffMs, isTransient, RETRY, withRetry } from "@/sdk/src/http.ts";
import { FormwellError } from "@/sdk/mod.ts";
import { type Answer, json, manualClock, scriptedFetch, testRuntime } from "./fakes.ts";
import { Formwell } from "@/sdk/mod.ts";

const err = (status: number, code = "x") => new FormwellError(status, code, "m");

Deno.test("sdk retry - backoff is full jitter under a capped exponential", async (t) => {
  const policy = { attempts: 10, baseMs: 500, capMs: 4000 };
  await t.step("the ceiling doubles from the base up to the cap", () => {
    const ceiling = (n: number) => backoffMs(n, policy, () => 0.999999) + 1;
    assert.deepEqual([0, 1, 2, 3, 4, 8].map(ceiling), [
      500,
      1000,
      2000,
      4000,
      4000,
      4000,
    ]);
  });
  await t.step("the delay is random() times the ceiling, down to 0", () => {
    assert.equal(backoffMs(2, policy, () => 0), 0);
    assert.equal(backoffMs(2, policy, () => 0.25), 500);
  });
});

Deno.test("sdk retry - which failures are retried", () => {
  assert.ok(isTransient(new FormwellError(0, "network_error", "m")));
  assert.ok(!isTransient(new FormwellError(0, "aborted", "m")));
  for (const s of [500, 502, 503, 408]) assert.ok(isTransient(err(s)), `${s}`);
  assert.ok(isTransient(err(429, "rate_limited")));
  assert.ok(
    !isTransient(err(429, "quota_exceeded")),
    "a monthly quota does not pass in seconds",
  );
  for (const s of [400, 401, 403, 404, 409, 413, 422, 423]) {
    assert.ok(!isTransient(err(s)), `${s}`);
  }
  assert.ok(!isTransient(new Error("not ours")));
});

Deno.test("sdk retry - withRetry stops at success, at a final error, or after the attempts", async (t) => {
  const clock = manualClock();
  const rt = {
    ...testRuntime(fetch, clock),
    sleep: (ms: number) => (clock.delays.push(ms), Promise.resolve()),
  };
  const runtime = rt as Parameters<typeof withRetry>[0];
  await t.step(
    "transient failures, then success: one call per attempt, backoff between",
    async () => {
      clock.delays.length = 0;
      let calls = 0;
      const out = await withRetry(runtime, {
        attempts: 4,
        baseMs: 100,
        capMs: 1000,
      }, () => {
        calls++;
        if (calls < 3) return Promise.reject(err(503));
        return Promise.resolve("ok");
      });
      assert.equal(out, "ok");
      assert.equal(calls, 3);
      assert.deepEqual(
        clock.delays,
        [50, 100],
        "random 0.5 of 100, then of 200",
      );
    },
  );
  await t.step("a 422 is thrown at once", async () => {
    let calls = 0;
    await assert.rejects(
      withRetry(runtime, RETRY, () => (calls++, Promise.reject(err(422)))),
      (e: FormwellError) => e.status === 422,
    );
    assert.equal(calls, 1);
  });
  await t.step(
    "the last transient failure is thrown after `attempts` calls",
    async () => {
      let calls = 0;
      await assert.rejects(
        withRetry(
          runtime,
          { attempts: 3, baseMs: 1, capMs: 1 },
          () => (calls++, Promise.reject(err(500))),
        ),
        (e: FormwellError) => e.status === 500,
      );
      assert.equal(calls, 3);
    },
  );
});

Deno.test("sdk retry - a submit keeps one Idempotency-Key over network errors, 5xx and 429", async () => {
  const answers: Answer[] = [
    "network",
    json(502, {}),
    json(429, { error: "slow", code: "rate_limited" }),
  ];
  const { fetch, sent } = scriptedFetch((_r, n) =>
    answers[n] ??
      json(201, { success: true, submission_id: "sub_1", submission_number: 7 })
  );
  const clock = manualClock();
  const fw = new Formwell({
    baseUrl: "https://forms.test",
    outbox: false,
    runtime: testRuntime(fetch, clock),
    retry: { attempts: 5, baseMs: 1000, capMs: 3000 },
  });
  let result: unknown;
  const p = fw.submit("fAbc", { name: "Ada" }).then((r) => result = r);
  await clock.runUntil(() => result !== undefined);
  await p;
  assert.deepEqual(result, { submission_id: "sub_1", submission_number: 7 });
  assert.equal(sent.length, 4);
  assert.deepEqual(
    new Set(sent.map((s) => s.headers["idempotency-key"])),
    new Set(["key-1"]),
  );
  assert.ok(
    sent.every((s) => s.url === "https://forms.test/api/v1/submit/p/fAbc"),
  );
  assert.deepEqual(
    clock.delays,
    [500, 1000, 1500],
    "jittered backoff, capped at 3000",
  );
});

Deno.test("sdk retry - a quota refusal and a 4xx are not retried; the error is typed", async () => {
  for (
    const [status, body] of [
      [429, { error: "Monthly quota reached.", code: "quota_exceeded" }],
      [423, { error: "Closed.", code: "form_closed" }],
    ] as const
  ) {
    const { fetch, sent } = scriptedFetch(() => json(status, body));
    const fw = new Formwell({
      baseUrl: "https://forms.test",
      outbox: false,
      runtime: testRuntime(fetch),
    });
    await assert.rejects(fw.submit("fAbc", { a: 1 }), (e: FormwellError) => {
      assert.ok(e instanceof FormwellError);
      assert.equal(e.status, status);
      assert.equal(e.code, body.code);
      assert.equal(e.message, body.error);
      assert.equal(e.requestId, `req_${status}`);
      return true;
    });
    assert.equal(sent.length, 1);
  }
});
