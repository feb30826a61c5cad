/**
 * The event feed through the Server Data API, in one process with the real job runner:
 * `submission.created` after the verdict (with its final status), status changes and
 * deletes, in commit order; paging with the cursor; the types filter; live and test keys
 * see their own mode's events only; events older than 30 days are gone; a tampered or
 * foreign cursor and unknown types are 400s; scope and auth as every server route.
 */
import assert from "node:assert/strict";
import { dispatch } from "@/lib/jobs/mod.ts";
import { setSubmissionStatus } from "@/lib/submissions/status.ts";
import { deleteSubmissions } from "@/lib/submissions/delete.ts";
import { getForm } from "@/lib/forms/forms.ts";
import { makeForm, makeKey, makeWorkspace, type TestEnv, testEnv } from "@/tests/helpers.ts";
import { waitFor } from "@/tests/lib/notify/_support.ts";

type Page = {
  events: { id: string; type: string; created_at: string; data: Record<string, unknown> }[];
  next_cursor: string;
  has_more: boolean;
};

async function feed(env: TestEnv, key: string, query = ""): Promise<Page> {
  const res = await env.request(`/api/v1/server/events${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(res.status, 200, await res.clone().text());
  return await res.json();
}

async function submit(env: TestEnv, formId: string, key: string, i: number): Promise<string> {
  const res = await env.request(`/api/v1/submit/p/${formId}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ data: { name: `P${i}`, email: `p${i}@example.com` } }),
  });
  assert.equal(res.status, 201);
  return (await res.json()).submission_id;
}

/** Reads the whole feed from `after` by following next_cursor. */
async function drain(env: TestEnv, key: string, after?: string, limit = 3) {
  const out: Page["events"] = [];
  let cursor = after;
  for (let i = 0; i < 100; i++) {
    const q = `?limit=${limit}${cursor ? `&after=${encodeURIComponent(cursor)}` : ""}`;
    const page = await feed(env, key, q);
    out.push(...page.events);
    cursor = page.next_cursor;
    if (!page.has_more) break;
  }
  return { events: out, cursor: cursor! };
}

Deno.test("feed - created after the verdict, status changes and deletes, in order", async () => {
  let clock = Date.now();
  const env = await testEnv({}, { now: () => clock });
  env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws);
    const live = await makeKey(env.deps, ws, { scopes: ["submit", "read", "admin"] });
    const test = await makeKey(env.deps, ws, { type: "test", scopes: ["submit", "read"] });

    const empty = await feed(env, live);
    assert.deepEqual(empty.events, []);
    assert.equal(empty.has_more, false);

    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await submit(env, form.id, live, i));
    const testId = await submit(env, form.id, test, 99);
    await waitFor("five verdicts", async () => (await drain(env, live)).events.length === 5);

    await setSubmissionStatus(env.deps, form.id, ids[1], "spam");
    const del = await env.request(`/api/v1/server/forms/${form.id}/submissions`, {
      method: "DELETE",
      headers: { "content-type": "application/json", authorization: `Bearer ${live}` },
      body: JSON.stringify({ ids: [ids[2]] }),
    });
    assert.equal(del.status, 200);

    await t_all(env, live, ids);
    // Paging: the first cursor's continuation holds exactly what followed it.
    const first = await feed(env, live, "?limit=2");
    assert.equal(first.has_more, true);
    const rest = await drain(env, live, first.next_cursor, 2);
    assert.deepEqual(
      [...first.events, ...rest.events].map((e) => e.id),
      (await drain(env, live, undefined, 100)).events.map((e) => e.id),
    );
    // Polling with the last cursor again returns nothing new.
    const again = await feed(env, live, `?after=${encodeURIComponent(rest.cursor)}`);
    assert.deepEqual(again.events, []);
    assert.equal(again.next_cursor, rest.cursor);

    // Types filter.
    const onlyDeleted = await feed(
      env,
      live,
      "?types=submission.deleted,submission.status_changed",
    );
    assert.deepEqual(onlyDeleted.events.map((e) => e.type), [
      "submission.status_changed",
      "submission.deleted",
    ]);

    // Mode separation: the test key sees its one test submission, the live key none of it.
    await waitFor("the test verdict", async () => (await feed(env, test)).events.length === 1);
    const testFeed = await feed(env, test);
    assert.equal((testFeed.events[0].data.submission as { id: string }).id, testId);
    assert.ok(
      !(await drain(env, live, undefined, 100)).events.some((e) =>
        (e.data.submission as { id: string } | null)?.id === testId
      ),
    );
    // A live cursor is refused on the test feed.
    const cross = await env.request(
      `/api/v1/server/events?after=${encodeURIComponent(first.next_cursor)}`,
      { headers: { authorization: `Bearer ${test}` } },
    );
    assert.equal(cross.status, 400);

    // Erased without notifying (retention, privacy erasure): its events stay, without data.
    const form2 = (await getForm(env.deps, form.id))!;
    await deleteSubmissions(env.deps, form2, "live", [ids[3]]);
    const after = (await drain(env, live, undefined, 100)).events;
    assert.equal(after.length, 7, "no event for a delete that notifies no one");
    assert.equal(after[3].data.submission, null);
    assert.equal(after[3].type, "submission.created");

    // 30 days later the events are gone from the feed.
    clock += 30 * 86_400_000 + 1000;
    assert.deepEqual((await drain(env, live, undefined, 100)).events, []);
  } finally {
    env.close();
  }
});

async function t_all(env: TestEnv, key: string, ids: string[]) {
  const { events } = await drain(env, key);
  assert.deepEqual(events.map((e) => e.type), [
    ...ids.map(() => "submission.created"),
    "submission.status_changed",
    "submission.deleted",
  ]);
  const subOf = (i: number) => events[i].data.submission as Record<string, unknown>;
  assert.deepEqual(events.slice(0, 5).map((_, i) => subOf(i).id), ids);
  assert.equal(subOf(0).status, "completed");
  // Final when stored: no later verdict's scored_at in the metadata.
  assert.equal((subOf(0).metadata as Record<string, unknown>).scored_at, undefined);
  assert.deepEqual(events[0].data.form, { public_id: subOf(0).form_id, name: "Contact" });
  // The created event keeps the status it had; the change carries the previous one.
  assert.equal(subOf(1).status, "completed");
  assert.equal(subOf(5).status, "spam");
  assert.equal(events[5].data.previous_status, "completed");
  // The deleted submission's data is still there.
  assert.equal(subOf(6).id, ids[2]);
  assert.deepEqual(subOf(6).fields, { name: "P2", email: "p2@example.com" });
  assert.equal(events[0].id, `msg_created_${ids[0]}`);
  assert.equal(new Set(events.map((e) => e.id)).size, events.length);
}

Deno.test("feed - bad cursors, types and limits are 400s; scope and auth", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const other = await makeWorkspace(env.deps, "pro");
    const key = await makeKey(env.deps, ws, { scopes: ["read"] });
    const otherKey = await makeKey(env.deps, other, { scopes: ["read"] });
    const submitOnly = await makeKey(env.deps, ws, { scopes: ["submit"] });
    const { next_cursor } = await feed(env, key);
    const [payload, mac] = next_cursor.split(".");
    const forged = btoa(JSON.stringify({ v: 1, w: ws.id, m: "live", s: 5 }))
      .replace(/=+$/, "");
    const bad = [
      `?after=${payload}.${mac.replace(/^./, mac[0] === "a" ? "b" : "a")}`,
      `?after=${payload}`,
      `?after=${forged}.${mac}`,
      `?after=${"x".repeat(600)}`,
      `?after=${encodeURIComponent("%%%.@@@")}`,
      "?types=submission.created,form.deleted",
      "?limit=0",
      "?limit=101",
      "?limit=abc",
    ];
    for (const q of bad) {
      const res = await env.request(`/api/v1/server/events${q}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(res.status, 400, q);
      assert.equal((await res.json()).code, "bad_request", q);
    }
    // Another workspace's (valid) cursor is refused too.
    const res = await env.request(
      `/api/v1/server/events?after=${encodeURIComponent(next_cursor)}`,
      { headers: { authorization: `Bearer ${otherKey}` } },
    );
    assert.equal(res.status, 400);
    await res.body?.cancel();
    const scope = await env.request("/api/v1/server/events", {
      headers: { authorization: `Bearer ${submitOnly}` },
    });
    assert.equal(scope.status, 403);
    await scope.body?.cancel();
    const none = await env.request("/api/v1/server/events");
    assert.equal(none.status, 401);
    await none.body?.cancel();
  } finally {
    env.close();
  }
});
