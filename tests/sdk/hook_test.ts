/**
 * `useFormwell`'s logic over a minimal hooks runtime (state kept between renders as React
 * keeps it): the states a submission passes through, its result, errors and progress.
 */
import assert from "node:assert/strict";
import { Formwell, type FormwellError } from "@/sdk/mod.ts";
import { createUseFormwell, type Hooks, type UseFormwell } from "@/sdk/src/hook.ts";
import { type Answer, json, manualClock, scriptedFetch, testRuntime } from "./fakes.ts";

/** Renders `hook` like a component: state slots by call order, kept between renders. */
function harness(hook: () => UseFormwell) {
  const slots: unknown[] = [];
  let i = 0;
  const hooks: Hooks = {
    useState<S>(initial: S | (() => S)) {
      const at = i++;
      if (slots.length <= at) {
        slots[at] = typeof initial === "function" ? (initial as () => S)() : initial;
      }
      const set = (next: S | ((p: S) => S)) => {
        slots[at] = typeof next === "function" ? (next as (p: S) => S)(slots[at] as S) : next;
      };
      return [slots[at] as S, set];
    },
    useCallback: (fn) => fn,
  };
  const render = () => {
    i = 0;
    return hook.call(null);
  };
  return { hooks, render };
}

Deno.test("sdk useFormwell - idle, submitting, queued, succeeded; failed with field errors", async () => {
  let script: Answer[] = [];
  const { fetch } = scriptedFetch(() =>
    script.shift() ??
      json(201, { submission_id: "sub_9", submission_number: 9 })
  );
  const clock = manualClock();
  const client = new Formwell({
    baseUrl: "https://forms.test",
    outbox: true,
    store: (await import("@/sdk/src/stores.ts")).memoryStore(),
    runtime: testRuntime(fetch, clock),
    retry: { attempts: 1 },
  });
  const h = harness(() => useFormwell("fAbc", { client }));
  const useFormwell = createUseFormwell(h.hooks);
  assert.equal(h.render().status, "idle");
  assert.equal(h.render().client, client);

  script = ["network"];
  const done = h.render().submit({ name: "Ada" });
  assert.equal(h.render().status, "submitting");
  await clock.runUntil(() => h.render().status === "queued");
  await clock.runUntil(() => h.render().status === "succeeded");
  assert.deepEqual(await done, {
    submission_id: "sub_9",
    submission_number: 9,
  });
  assert.deepEqual(h.render().result, {
    submission_id: "sub_9",
    submission_number: 9,
  });

  script = [
    "network",
    json(422, {
      error: "invalid",
      code: "validation_failed",
      errors: [{
        field: "email",
        fieldId: "f",
        message: "Email is required.",
        type: "required",
      }],
    }),
  ];
  const again = h.render().submit({ name: "Ada" });
  await clock.runUntil(() => h.render().status === "failed");
  assert.equal(await again, undefined);
  assert.equal((h.render().error as FormwellError).status, 422);
  assert.deepEqual(h.render().fieldErrors, { email: "Email is required." });
  h.render().reset();
  assert.equal(h.render().status, "idle");
});
