/**
 * The feed's positions follow commit order: two commits built on the same head cannot both
 * land (the second fails its check and, read again, takes the next positions), so a
 * reader past position n never meets a later commit below n.
 */
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import {
  appendFeed,
  type FeedEntry,
  feedHeadKey,
  type FeedItem,
  type StoredFeedEvents,
} from "@/lib/feed/append.ts";
import { readFeed } from "@/lib/feed/read.ts";
import type { Form } from "@/lib/schemas.ts";
import { makeForm, makeWorkspace, storedFeed, testEnv } from "@/tests/helpers.ts";
import { submissionOf } from "@/tests/lib/notify/_support.ts";

/** The `n`-th event to append for a submission of `form`. */
function itemOf(form: Form, n: number, type: FeedEntry["type"] = "submission.created"): FeedItem {
  return {
    id: `msg_${n}`,
    type,
    form,
    submission: { ...submissionOf(form, {}), workspace_id: form.workspace_id },
  };
}

/** A workspace with a form, in a fresh environment. */
async function setup() {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps);
  return { env, ws, form: await makeForm(env.deps, ws), kv: env.deps.kv };
}

Deno.test("feed append - positions are taken in commit order", async () => {
  const { env, ws, form, kv } = await setup();
  try {
    const head = await kv.get<number>(feedHeadKey(ws.id, "live"));
    const item = (n: number) => itemOf(form, n);
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
    const ids = (await storedFeed(env.deps, ws.id)).map((e) => e.id);
    assert.deepEqual(ids, ["msg_3", "msg_1", "msg_2"]);
  } finally {
    env.close();
  }
});

Deno.test("feed append and read - a key holds up to 24 events; a cursor may stop inside one", async () => {
  const { env, ws, form, kv } = await setup();
  try {
    const item = (n: number) =>
      itemOf(form, n, n % 2 ? "submission.created" : "submission.status_changed");
    const op = kv.atomic();
    const head = await kv.get<number>(feedHeadKey(ws.id, "live"));
    const at = appendFeed(op, head, Array.from({ length: 30 }, (_, i) => item(i + 1)), Date.now());
    assert.equal(at, 30);
    assert.ok((await op.commit()).ok);
    // A later commit of one event writes a key of its own, at the next position.
    const next = kv.atomic();
    assert.equal(
      appendFeed(next, await kv.get<number>(feedHeadKey(ws.id, "live")), [item(31)], Date.now()),
      31,
    );
    assert.ok((await next.commit()).ok);

    const stored = [];
    for await (const e of kv.list<StoredFeedEvents>({ prefix: keys.feedEvents(ws.id, "live") })) {
      stored.push([e.key[3], e.value.length]);
    }
    assert.deepEqual(stored, [[24, 24], [30, 6], [31, 1]]);

    const all = Array.from({ length: 31 }, (_, i) => `msg_${i + 1}`);
    // Pages of 5 and of 7 stop inside the entries; each page goes on where the last stopped.
    for (const limit of [5, 7, 31]) {
      const seen: string[] = [];
      let after: string | undefined;
      for (let page = 0; page < 10; page++) {
        const p = await readFeed(env.deps, { workspaceId: ws.id, mode: "live", after, limit });
        seen.push(...p.events.map((e) => e.id));
        after = p.next_cursor;
        if (!p.has_more) break;
      }
      assert.deepEqual(seen, all, `limit ${limit}`);
    }
    // The types filter counts positions the same way.
    const created = await readFeed(env.deps, {
      workspaceId: ws.id,
      mode: "live",
      limit: 100,
      types: ["submission.created"],
    });
    assert.deepEqual(created.events.map((e) => e.id), all.filter((_, i) => i % 2 === 0));
  } finally {
    env.close();
  }
});
