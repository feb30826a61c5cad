/**
 * The client library's drafts against the real app: `saveDraft` starts then saves one
 * draft, `resume` reads it back (here and, with the token, on another device), a submit
 * names the draft so the service removes it, and a save made offline waits and goes once
 * the browser is back online.
 * @module
 */
import assert from "node:assert/strict";
import { Formwell } from "@/sdk/mod.ts";
import { memoryStore } from "@/sdk/src/stores.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Draft } from "@/lib/drafts/types.ts";
import { makeForm, makeWorkspace, recount, type TestEnv, testEnv } from "@/tests/helpers.ts";
import { countUnder, DRAFT_FORM } from "@/tests/drafts_support.ts";
import { waitFor } from "@/tests/lib/notify/_support.ts";
import { appFetch } from "./app_fetch.ts";

function client(env: TestEnv, down?: () => boolean): Formwell {
  return new Formwell({
    baseUrl: "http://localhost",
    outbox: true,
    store: memoryStore(),
    runtime: {
      fetch: appFetch(env, (_req, answer) => {
        if (down?.()) return Promise.reject(new TypeError("offline"));
        return answer();
      }),
    },
  });
}

Deno.test("sdk drafts - save, resume, submit removes it", async () => {
  const env = await testEnv();
  try {
    const form = await makeForm(env.deps, await makeWorkspace(env.deps), DRAFT_FORM);
    const fw = client(env);
    const first = await fw.saveDraft(form.id, { name: "Ada" });
    assert.equal(first.queued, false);
    assert.match(first.draftId ?? "", /^drf_/);
    const second = await fw.saveDraft(form.id, { name: "Ada L", topic: "sales" }, { step: 2 });
    assert.equal(second.draftId, first.draftId, "the same draft is saved again");
    assert.equal(await countUnder(env, keys.drafts(form.id)), 1);

    const back = await fw.resume(form.id);
    assert.deepEqual(back?.data, { name: "Ada L", topic: "sales" });
    assert.equal(back?.step, 2);
    // Another device with the token (as a resume link carries it).
    const elsewhere = await client(env).resume(form.id, first.resumeToken!);
    assert.equal(elsewhere?.draftId, first.draftId);

    await fw.submit(form.id, { name: "Ada L", email: "ada@example.com" });
    assert.equal(await recount(env.deps, form.id), 1);
    assert.equal(await countUnder(env, keys.drafts(form.id)), 0, "removed with its submission");
    assert.equal(await fw.resume(form.id), null, "forgotten once submitted");
  } finally {
    env.close();
  }
});

Deno.test("sdk drafts - a save made offline waits, then goes online", async () => {
  const env = await testEnv();
  let down = false;
  try {
    const form = await makeForm(env.deps, await makeWorkspace(env.deps), DRAFT_FORM);
    const fw = client(env, () => down);
    const started = await fw.saveDraft(form.id, { name: "Ada" });
    down = true;
    const kept = await fw.saveDraft(form.id, { name: "Ada Lovelace" });
    assert.equal(kept.queued, true);
    assert.equal(kept.draftId, started.draftId);
    down = false;
    globalThis.dispatchEvent(new Event("online"));
    await waitFor("the kept save to arrive", async () => {
      const d = await env.deps.kv.get<Draft>(keys.draft(form.id, started.draftId!));
      return d.value?.data.name === "Ada Lovelace";
    });
    fw.forgetDraft(form.id);
  } finally {
    env.close();
  }
});
