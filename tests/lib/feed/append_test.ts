/**
 * The feed's positions follow commit order: two commits built on the same head cannot both
 * land (the second fails its check and, read again, takes the next positions), so a
 * reader past position n never meets a later commit below n.
 */
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { appendFeed, feedHeadKey } from "@/lib/feed/append.ts";
import { makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { submissionOf } from "@/tests/lib/notify/_support.ts";

Deno.test("feed append - positions are taken in commit order", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    const kv = env.deps.kv;
    const head = await kv.get<number>(feedHeadKey(ws.id, "live"));
    const item = (n: number) => ({
      id: `msg_${n}`,
      type: "submission.created" as const,
      form,
      submission: { ...submissionOf(form, {}), workspace_id: ws.id },
    });
    // Built first, committed second: it must not land below the other's positions.
    const early = kv.atomic();
    appendFeed(early, head, [item(1), item(2)], Date.now());
    const late = kv.atomic();
    assert.equal(appendFeed(late, head, [item(3)], Date.now()), 1);
    assert.ok((await late.commit()).ok);
    assert.equal((await early.commit()).ok, false, "a stale head fails the commit");
    const again = kv.atomic();
    const fresh = await kv.get<number>(feedHeadKey(ws.id, "live"));
    assert.equal(appendFeed(again, fresh, [item(1), item(2)], Date.now()), 3);
    assert.ok((await again.commit()).ok);
    const ids: string[] = [];
    for await (const e of kv.list<{ id: string }>({ prefix: keys.feedEvents(ws.id, "live") })) {
      ids.push(e.value.id);
    }
    assert.deepEqual(ids, ["msg_3", "msg_1", "msg_2"]);
  } finally {
    env.close();
  }
});
