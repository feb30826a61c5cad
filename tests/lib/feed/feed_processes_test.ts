/**
 * The event feed across real processes: a reader's cursor survives a restart of the server
 * (and its secret, generated once and kept in KV) and continues exactly where it stopped;
 * two `main.ts` processes on one KV file with `JOBS=table`, writing verdicts of two forms of
 * one workspace and deleting concurrently, while a reader polls both: every event arrives,
 * once, each submission's `created` before its `deleted`.
 * @module
 */
import assert from "node:assert/strict";
import { makeForm, makeKey, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { startServer, within } from "@/tests/processes.ts";

type Event = { id: string; type: string; data: { submission: { id: string } | null } };
type Page = { events: Event[]; next_cursor: string; has_more: boolean };

const RATE_LIMITS = JSON.stringify({ submit: 100000, workspace: 100000 });

function serverEnv(dir: string, jobs: "queue" | "table"): Record<string, string> {
  return {
    KV_PATH: `${dir}/kv.sqlite`,
    JOBS: jobs,
    FORMWELL_ENV: "test",
    FORMWELL_SEED: "0",
    RATE_LIMITS,
    LOCAL_STORAGE_DIR: `${dir}/files`,
  };
}

async function submit(url: string, formId: string, key: string, i: number): Promise<string> {
  const res = await fetch(`${url}/api/v1/submit/p/${formId}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ data: { name: `P${i}`, email: `p${i}@example.com` } }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()).submission_id;
}

async function page(url: string, key: string, after: string | null, limit: number): Promise<Page> {
  const q = `limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ""}`;
  const res = await fetch(`${url}/api/v1/server/events?${q}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(res.status, 200, await res.clone().text());
  return await res.json();
}

/** Follows the cursor until the feed has nothing more right now. */
async function poll(url: string, key: string, after: string | null, limit = 7) {
  const events: Event[] = [];
  let cursor = after;
  for (;;) {
    const p = await page(url, key, cursor, limit);
    events.push(...p.events);
    cursor = p.next_cursor;
    if (!p.has_more) return { events, cursor };
  }
}

Deno.test("feed (processes) - a cursor survives a restart and goes on where it stopped", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-feed-" });
  const setup = await testEnv({ KV_PATH: `${dir}/kv.sqlite` });
  const ws = await makeWorkspace(setup.deps, "pro");
  const form = await makeForm(setup.deps, ws);
  const key = await makeKey(setup.deps, ws, { scopes: ["submit", "read"] });
  setup.close();
  let server = await startServer(serverEnv(dir, "queue"));
  try {
    const first: string[] = [];
    for (let i = 0; i < 10; i++) first.push(await submit(server.url, form.id, key, i));
    let seen: Event[] = [];
    let cursor: string | null = null;
    const got = await within(20_000, async () => {
      const r = await poll(server.url, key, cursor);
      seen = [...seen, ...r.events];
      cursor = r.cursor;
      return seen.length >= 10;
    });
    assert.notEqual(got, null, "ten created events");
    assert.deepEqual(seen.map((e) => e.data.submission!.id), first);
    const mid = (await page(server.url, key, null, 4)).next_cursor;

    await server.stop();
    server = await startServer(serverEnv(dir, "queue"));
    const second: string[] = [];
    for (let i = 10; i < 15; i++) second.push(await submit(server.url, form.id, key, i));
    let after: Event[] = [];
    const got2 = await within(20_000, async () => {
      const r = await poll(server.url, key, cursor);
      after = [...after, ...r.events];
      cursor = r.cursor;
      return after.length >= 5;
    });
    assert.notEqual(got2, null, "five more after the restart");
    assert.deepEqual(after.map((e) => e.data.submission!.id), second);
    const fromMid = await poll(server.url, key, mid, 3);
    assert.deepEqual(
      fromMid.events.map((e) => e.data.submission!.id),
      [...first.slice(4), ...second],
    );
  } finally {
    await server.stop();
  }
});

Deno.test("feed (processes) - two processes, JOBS=table: every event once, in order", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-feed-" });
  const setup = await testEnv({ KV_PATH: `${dir}/kv.sqlite` });
  const ws = await makeWorkspace(setup.deps, "pro");
  const forms = [await makeForm(setup.deps, ws), await makeForm(setup.deps, ws)];
  const key = await makeKey(setup.deps, ws, { scopes: ["submit", "read", "admin"] });
  setup.close();
  const a = await startServer(serverEnv(dir, "table"));
  const b = await startServer(serverEnv(dir, "table"));
  const servers = [a, b];
  try {
    // The reader polls both processes, alternating, for the whole run.
    const seen: Event[] = [];
    let cursor: string | null = null;
    let stop = false;
    let polls = 0;
    const reader = (async () => {
      while (!stop) {
        const r = await poll(servers[polls++ % 2].url, key, cursor, 5);
        seen.push(...r.events);
        cursor = r.cursor;
        await new Promise((res) => setTimeout(res, 20));
      }
    })();
    const ids: { form: string; id: string }[] = [];
    for (let round = 0; round < 6; round++) {
      const batch = await Promise.all(Array.from({ length: 10 }, async (_, i) => {
        const n = round * 10 + i;
        const form = forms[n % 2].id;
        return { form, id: await submit(servers[(n >> 1) % 2].url, form, key, n) };
      }));
      ids.push(...batch);
    }
    const createdSeen = () => seen.filter((e) => e.type === "submission.created").length;
    assert.notEqual(await within(30_000, () => Promise.resolve(createdSeen() >= 60)), null);
    // Deletes through both processes at once, one per form.
    const gone = [ids[0], ids[1], ids[2], ids[3]];
    await Promise.all(gone.map(async (s, i) => {
      const res = await fetch(`${servers[i % 2].url}/api/v1/server/forms/${s.form}/submissions`, {
        method: "DELETE",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ ids: [s.id] }),
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }));
    const total = () => seen.length;
    assert.notEqual(await within(20_000, () => Promise.resolve(total() >= 64)), null);
    stop = true;
    await reader;
    // Nothing more arrives later, and nothing came twice.
    const late = await poll(a.url, key, cursor);
    assert.deepEqual(late.events, []);
    assert.equal(new Set(seen.map((e) => e.id)).size, seen.length, "each event once");
    assert.equal(seen.length, 64);
    const created = seen.filter((e) => e.type === "submission.created");
    assert.deepEqual(
      new Set(created.map((e) => e.data.submission!.id)),
      new Set(ids.map((s) => s.id)),
    );
    for (const s of gone) {
      const c = seen.findIndex((e) =>
        e.type === "submission.created" && e.data.submission!.id === s.id
      );
      const d = seen.findIndex((e) =>
        e.type === "submission.deleted" && e.data.submission!.id === s.id
      );
      assert.ok(c >= 0 && d > c, "created before deleted");
    }
    // A fresh reader from the start sees the same sequence.
    const again = await poll(b.url, key, null, 100);
    assert.deepEqual(again.events.map((e) => e.id), seen.map((e) => e.id));
    assert.ok(polls > 2, "the reader polled during the writes");
  } finally {
    await a.stop();
    await b.stop();
  }
});
