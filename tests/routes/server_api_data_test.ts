import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import { seedSubmissions } from "@/bench/seed.ts";
import {
  contactData,
  makeForm,
  makeKey,
  makeWorkspace,
  postJson,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { assertCountersExact, recordsOf } from "@/tests/recount.ts";

function getJson(env: TestEnv, path: string, key: string) {
  return env.request(`/api/v1/server${path}`, { headers: { authorization: `Bearer ${key}` } });
}

function del(env: TestEnv, formId: string, key: string, body: unknown) {
  return env.request(`/api/v1/server/forms/${formId}/submissions`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

Deno.test("server api data - forms list and one form", async (t) => {
  let clock = Date.parse("2026-01-01T00:00:00Z");
  const env = await testEnv({}, { now: () => (clock += 1000) });
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    const key = await makeKey(env.deps, ws);
    const names = ["Zebra signup", "alpha Survey", "Beta feedback", "gamma SURVEY", "Delta"];
    const forms: Form[] = [];
    for (const name of names) forms.push(await makeForm(env.deps, ws, { name, fields: [] }));
    const secretForm = await makeForm(env.deps, ws, {
      name: "Captcha form",
      fields: [],
      captcha: { provider: "turnstile", siteKey: "site-key-1", secret: "very-secret-value" },
    });

    await t.step("default sort is newest first, with pagination", async () => {
      const res = await getJson(env, "/forms?limit=4", key);
      const body = await res.json();
      assert.deepEqual(body.forms.map((f: { name: string }) => f.name), [
        "Captcha form",
        "Delta",
        "gamma SURVEY",
        "Beta feedback",
      ]);
      assert.deepEqual(body.pagination, {
        page: 1,
        limit: 4,
        total: 6,
        total_pages: 2,
        has_more: true,
      });
      const p2 = await (await getJson(env, "/forms?limit=4&page=2", key)).json();
      assert.equal(p2.forms.length, 2);
      assert.equal(p2.pagination.has_more, false);
    });

    await t.step("search is a case-insensitive substring of the name; sortBy name", async () => {
      const body = await (await getJson(env, "/forms?search=survey&sortBy=name", key)).json();
      assert.deepEqual(body.forms.map((f: { name: string }) => f.name), [
        "alpha Survey",
        "gamma SURVEY",
      ]);
      const desc = await (await getJson(env, "/forms?sortBy=-name&limit=2", key)).json();
      assert.deepEqual(desc.forms.map((f: { name: string }) => f.name), [
        "Zebra signup",
        "gamma SURVEY",
      ]);
      const asc = await (await getJson(env, "/forms?sortBy=created_at&limit=1", key)).json();
      assert.equal(asc.forms[0].public_id, forms[0].id);
    });

    await t.step("bad query values are 400 naming the parameter", async () => {
      for (const q of ["limit=0", "limit=101", "limit=abc", "page=0", "sortBy=secret"]) {
        const res = await getJson(env, `/forms?${q}`, key);
        const body = await res.json();
        assert.equal(res.status, 400, q);
        assert.equal(body.code, "bad_request");
        assert.ok(body.error.includes(q.split("=")[0]), body.error);
      }
    });

    await t.step("one form never shows the CAPTCHA secret", async () => {
      const res = await getJson(env, `/forms/${secretForm.id}`, key);
      const text = await res.text();
      assert.equal(res.status, 200);
      assert.ok(!text.includes("very-secret-value"));
      const body = JSON.parse(text);
      assert.equal(body.form.public_id, secretForm.id);
      assert.equal(body.form.captcha.siteKey, "site-key-1");
      assert.equal(body.form.workspace_id, undefined);
      const list = await (await getJson(env, "/forms?limit=100", key)).text();
      assert.ok(!list.includes("very-secret-value"));
    });
  } finally {
    env.close();
  }
});

Deno.test("server api data - submissions list and one submission, live vs test", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    const form = await makeForm(env.deps, ws);
    const live = await makeKey(env.deps, ws, { type: "live" });
    const test = await makeKey(env.deps, ws, { type: "test" });
    for (let i = 0; i < 3; i++) {
      const r = await postJson(env, `/api/v1/submit/p/${form.id}`, contactData(i), {
        authorization: `Bearer ${test}`,
      });
      assert.equal(r.status, 201);
      await r.body?.cancel();
    }
    const r = await postJson(env, `/api/v1/submit/p/${form.id}`, {
      ...contactData(9),
      metadata: { ref: "ad" },
    });
    assert.equal(r.status, 201);
    const { submission_id: liveId } = await r.json();
    const liveList = await (await getJson(env, `/forms/${form.id}/submissions`, live)).json();
    assert.deepEqual(liveList.submissions.map((s: { id: string }) => s.id), [liveId]);
    const testList = await (await getJson(env, `/forms/${form.id}/submissions`, test)).json();
    assert.equal(testList.pagination.total, 3);
    assert.ok(testList.submissions.every((s: { id: string }) => s.id !== liveId));
    const one = await (await getJson(env, `/forms/${form.id}/submissions/${liveId}`, live)).json();
    assert.deepEqual(Object.keys(one.submission).sort(), [
      "created_at",
      "fields",
      "form_id",
      "id",
      "metadata",
      "status",
      "submission_number",
    ]);
    // The client's metadata as sent (the verdict was final when stored: no later scored_at).
    assert.deepEqual(one.submission.metadata, { ref: "ad" });
    assert.equal(one.submission.fields.email, "person9@example.com");
    const bad = await getJson(env, `/forms/${form.id}/submissions?status=deleted`, live);
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
    const badRange = await getJson(env, `/forms/${form.id}/submissions?range=1y`, live);
    assert.equal(badRange.status, 400);
    await badRange.body?.cancel();
  } finally {
    env.close();
  }
});

Deno.test("server api data - delete 500, refuse 501, queue file removal", async (t) => {
  const env = await testEnv();
  const jobs: unknown[] = [];
  const listening = env.deps.kv.listenQueue((msg) => {
    jobs.push(msg);
  });
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws);
    const admin = await makeKey(env.deps, ws, { scopes: ["admin"] });
    const ids = await seedSubmissions(env.deps, form, 1_200, {
      status: (i) => (i % 5 === 0 ? "spam" : "completed"),
    });

    await t.step("501 ids and 0 ids are 400 too_many_ids; bad bodies 400", async () => {
      for (const body of [{ ids: ids.slice(0, 501) }, { ids: [] }]) {
        const res = await del(env, form.id, admin, body);
        assert.equal(res.status, 400);
        assert.equal((await res.json()).code, "too_many_ids");
      }
      for (const body of ["", "[1]", '{"ids": [1]}', '{"ids": "x"}', '{"id": []}', "{"]) {
        const res = await del(env, form.id, admin, body);
        assert.equal(res.status, 400, body);
        assert.equal((await res.json()).code, "bad_request");
      }
      assert.equal((await recordsOf(env.deps.kv, form.id, "live")).length, 1_200);
    });

    await t.step("500 ids are deleted; counters and indexes stay exact", async () => {
      const res = await del(env, form.id, admin, { ids: ids.slice(100, 600) });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { deleted: 500, not_found: [] });
      await assertCountersExact(env.deps.kv, form.id, "live");
      assert.equal((await recordsOf(env.deps.kv, form.id, "live")).length, 700);
      const again = await del(env, form.id, admin, { ids: [ids[100], ids[100], ids[0]] });
      assert.deepEqual(await again.json(), { deleted: 1, not_found: [ids[100]] });
      await assertCountersExact(env.deps.kv, form.id, "live");
    });

    await t.step("files of deleted submissions go to one delete_files job", async () => {
      const entry = await env.deps.kv.get<Submission>(keys.submission(form.id, ids[700]));
      await env.deps.kv.set(entry.key, { ...entry.value!, files: ["ws/a/1.pdf", "ws/a/2.png"] });
      const res = await del(env, form.id, admin, { ids: [ids[700], ids[701]] });
      assert.deepEqual(await res.json(), { deleted: 2, not_found: [] });
      for (let i = 0; i < 200 && jobs.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.deepEqual(jobs, [{ type: "delete_files", paths: ["ws/a/1.pdf", "ws/a/2.png"] }]);
    });
  } finally {
    env.close();
    await listening;
  }
});

Deno.test("server api data - deleting while submissions arrive keeps counters exact", async () => {
  const env = await testEnv({ RATE_LIMITS: JSON.stringify({ submit: 100_000 }) });
  try {
    const ws = await makeWorkspace(env.deps, "business");
    const form = await makeForm(env.deps, ws);
    const admin = await makeKey(env.deps, ws, { scopes: ["read", "admin"] });
    const ids = await seedSubmissions(env.deps, form, 900);
    const submits = Array.from({ length: 150 }, async (_, i) => {
      const r = await postJson(
        env,
        `/api/v1/submit/p/${form.id}`,
        contactData(i),
        {},
        `10.0.${i}.1`,
      );
      await r.body?.cancel();
      return r.status;
    });
    const deletes = [0, 300, 600].map(async (start) => {
      const r = await del(env, form.id, admin, { ids: ids.slice(start, start + 300) });
      return (await r.json()).deleted;
    });
    const [statuses, deleted] = await Promise.all([Promise.all(submits), Promise.all(deletes)]);
    assert.ok(statuses.every((s) => s === 201), JSON.stringify(statuses));
    assert.deepEqual(deleted, [300, 300, 300]);
    await assertCountersExact(env.deps.kv, form.id, "live");
    const list = await (await getJson(env, `/forms/${form.id}/submissions?limit=100`, admin))
      .json();
    assert.equal(list.pagination.total, 150);
    assert.equal(list.submissions.length, 100);
  } finally {
    env.close();
  }
});

Deno.test("server api data - analytics over the plan's retention window", async () => {
  const now = Date.parse("2026-05-20T10:00:00Z");
  const env = await testEnv({}, { now: () => now });
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    const form = await makeForm(env.deps, ws);
    const live = await makeKey(env.deps, ws);
    const test = await makeKey(env.deps, ws, { type: "test" });
    const events = ["view", "view", "view", "start", "start"];
    for (const type of events) {
      const r = await postJson(env, `/api/v1/forms/p/${form.id}/events`, { type });
      assert.equal(r.status, 202);
      await r.body?.cancel();
    }
    const s = await postJson(env, `/api/v1/submit/p/${form.id}`, contactData(1));
    assert.equal(s.status, 201);
    await s.body?.cancel();
    // Older than the 90-day Starter window: not counted.
    await env.deps.kv.set(
      keys.analytics(form.id, "live", "2026-02-19", "views"),
      new Deno.KvU64(7n),
    );
    await env.deps.kv.set(
      keys.analytics(form.id, "live", "2026-02-20", "views"),
      new Deno.KvU64(2n),
    );
    const body = await (await getJson(env, `/forms/${form.id}/analytics`, live)).json();
    const a = body.analytics;
    assert.equal(a.views, 5);
    assert.equal(a.starts, 2);
    assert.equal(a.submissions, 1);
    assert.equal(a.completion_rate, 0.5);
    assert.equal(a.retention_days, 90);
    assert.equal(a.from, "2026-02-20");
    assert.equal(a.to, "2026-05-20");
    assert.equal(a.daily.length, 90);
    assert.deepEqual(a.daily[0], { date: "2026-02-20", views: 2, starts: 0, submissions: 0 });
    assert.deepEqual(a.daily[89], { date: "2026-05-20", views: 3, starts: 2, submissions: 1 });
    const t = (await (await getJson(env, `/forms/${form.id}/analytics`, test)).json()).analytics;
    assert.deepEqual([t.views, t.starts, t.submissions, t.completion_rate], [0, 0, 0, null]);
  } finally {
    env.close();
  }
});
