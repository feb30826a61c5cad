import assert from "node:assert/strict";
import { auditCli } from "@/lib/privacy/audit_cli.ts";
import { audit, AUDIT_ACTIONS } from "@/lib/privacy/audit.ts";
import { runErase } from "@/lib/privacy/erase.ts";
import { setDefaultRetention, setFormRetention } from "@/lib/privacy/settings.ts";
import { runCli } from "@/cli.ts";
import {
  contactData,
  makeForm,
  makeKey,
  makeWorkspace,
  postJson,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { assertCountersExact } from "@/tests/recount.ts";

const LIMITS = JSON.stringify({ submit: 100_000, workspace: 100_000 });

function call(env: TestEnv, path: string, key: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${key}`);
  return env.request(`/api/v1/server${path}`, { ...init, headers, ip: "198.51.100.44" });
}

function erase(env: TestEnv, key: string, body: unknown) {
  return call(env, "/privacy/erase", key, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

Deno.test("privacy routes - erase, job progress, export, audit; scopes and workspaces", async (t) => {
  const env = await testEnv({ RATE_LIMITS: LIMITS });
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const other = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws);
    const form2 = await makeForm(env.deps, ws);
    const admin = await makeKey(env.deps, ws, { scopes: ["read", "admin"] });
    const reader = await makeKey(env.deps, ws, { scopes: ["read"] });
    const otherAdmin = await makeKey(env.deps, other, { scopes: ["read", "admin"] });
    const submit = async (f: typeof form, data: Record<string, unknown>) => {
      const res = await postJson(env, `/api/v1/submit/p/${f.id}`, { data });
      assert.equal(res.status, 201);
      return (await res.json()).submission_id as string;
    };
    const mine = [
      await submit(form, { name: "Ada", email: "ada@example.com" }),
      await submit(form2, { name: "Ada", email: "Ada@Example.com" }),
    ];
    const someoneElse = await submit(form, contactData(3).data);

    await t.step(
      "export needs read; returns the person's submissions with their form",
      async () => {
        const res = await call(env, "/privacy/export?email=ADA@example.com", reader);
        assert.equal(res.status, 200);
        const body = await res.json();
        assert.equal(body.email, "ADA@example.com");
        assert.deepEqual(
          body.submissions.map((s: { id: string }) => s.id).sort(),
          [...mine].sort(),
        );
        const one = body.submissions.find((s: { id: string }) => s.id === mine[0]);
        assert.deepEqual(one.form, { public_id: form.id, name: form.name });
        assert.equal(one.fields.email, "ada@example.com");
        assert.equal(one.submission_number, 1);
        assert.equal(one.signals, undefined);
        assert.equal(one.email_digests, undefined);
        const bad = await call(env, "/privacy/export?email=nope", reader);
        assert.equal(bad.status, 400);
        assert.equal((await bad.json()).code, "bad_request");
        const elsewhere = await call(env, "/privacy/export?email=ada@example.com", otherAdmin);
        assert.deepEqual((await elsewhere.json()).submissions, []);
      },
    );

    await t.step("erase needs admin, answers 202 with a job; progress is readable", async () => {
      const denied = await erase(env, reader, { email: "ada@example.com" });
      assert.equal(denied.status, 403);
      assert.equal((await denied.json()).code, "insufficient_scope");
      assert.equal((await erase(env, admin, { mail: "x" })).status, 400);
      assert.equal((await erase(env, admin, "not json at all")).status, 400);
      const res = await erase(env, admin, { email: " ada@example.com " });
      assert.equal(res.status, 202);
      const { job } = await res.json();
      assert.equal(job.status, "running");
      assert.match(job.id, /^job_/);
      // The queue is not listened to in app tests: run the job as the listener would.
      await runErase(env.deps, job.id);
      const progress = await call(env, `/privacy/jobs/${job.id}`, admin);
      assert.equal(progress.status, 200);
      const done = (await progress.json()).job;
      assert.equal(done.status, "done");
      assert.equal(done.deleted, 2);
      assert.deepEqual(done.forms, { [form.id]: 1, [form2.id]: 1 });
      const again = await call(env, "/privacy/export?email=ada@example.com", reader);
      assert.deepEqual((await again.json()).submissions, []);
      const kept = await call(env, `/forms/${form.id}/submissions/${someoneElse}`, reader);
      assert.equal(kept.status, 200);
      await kept.body?.cancel();
      await assertCountersExact(env.deps.kv, form.id, "live");
      await assertCountersExact(env.deps.kv, form2.id, "live");

      // Another workspace's caller and an unknown id get the same 404.
      const theirs = await call(env, `/privacy/jobs/${job.id}`, otherAdmin);
      const unknown = await call(env, `/privacy/jobs/job_01aaaaaaaaaaaaaaaaaaaaaaaa`, admin);
      const junk = await call(env, `/privacy/jobs/nonsense`, admin);
      assert.equal(theirs.status, 404);
      const a = await theirs.json();
      const b = await unknown.json();
      assert.deepEqual(a, b);
      assert.deepEqual(await junk.json(), b);
      assert.equal(b.code, "not_found");
      const readerJob = await call(env, `/privacy/jobs/${job.id}`, reader);
      assert.equal(readerJob.status, 403);
      await readerJob.body?.cancel();
    });

    await t.step("the audit log: admin scope, newest first, filter and paging", async () => {
      const r = await call(env, "/audit", reader);
      assert.equal(r.status, 403);
      await r.body?.cancel();
      const res = await call(env, "/audit?limit=50", admin);
      assert.equal(res.status, 200);
      const body = await res.json();
      const actions = body.events.map((e: { action: string }) => e.action);
      // Newest first: the export after the erase, the erasure done and started, the first export.
      assert.deepEqual(actions, [
        "export.privacy",
        "privacy.erasure",
        "privacy.erasure",
        "export.privacy",
      ]);
      const started = body.events[2];
      assert.equal(started.actor.startsWith("key:fw_live_"), true, started.actor);
      assert.equal(started.ip, "198.51.100.0");
      assert.equal(started.expires_at, undefined);
      assert.equal(body.events[1].details.deleted, 2);
      assert.equal(body.events[0].details.count, 0);
      const page2 = await (await call(env, "/audit?limit=1&page=2&action=privacy.erasure", admin))
        .json();
      assert.equal(page2.events.length, 1);
      assert.equal(page2.events[0].details.phase, "started");
      assert.deepEqual(page2.pagination, {
        page: 2,
        limit: 1,
        total: 2,
        total_pages: 2,
        has_more: false,
      });
      const bad = await call(env, "/audit?action=rewrite_history", admin);
      assert.equal(bad.status, 400);
      await bad.body?.cancel();
      const theirs = await (await call(env, "/audit", otherAdmin)).json();
      assert.equal(
        theirs.events.filter((e: { action: string }) => e.action !== "export.privacy").length,
        0,
      );
      // There is no route that edits or deletes events.
      for (const method of ["PATCH", "DELETE", "PUT", "POST"]) {
        const w = await call(env, "/audit", admin, { method });
        assert.ok(w.status === 404 || w.status === 405, `${method} ${w.status}`);
        await w.body?.cancel();
      }
    });

    await t.step("a Server Data API delete is audited with its count", async () => {
      const res = await call(env, `/forms/${form.id}/submissions`, admin, {
        method: "DELETE",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ids: [someoneElse] }),
      });
      assert.deepEqual(await res.json(), { deleted: 1, not_found: [] });
      const log = await (await call(env, "/audit?action=submissions.deleted", admin)).json();
      assert.equal(log.events.length, 1);
      assert.deepEqual(log.events[0].details, { form: form.id, mode: "live", count: 1 });
    });
  } finally {
    env.close();
  }
});

Deno.test("privacy audit - CLI commands and retention changes write events", async () => {
  const env = await testEnv();
  try {
    const run = async (args: string[]) => {
      const out = await runCli(env.deps, args);
      await auditCli(env.deps, args, out);
      return out as Record<string, unknown>;
    };
    const ws = await makeWorkspace(env.deps, "starter");
    const file = await Deno.makeTempFile({ suffix: ".json" });
    await Deno.writeTextFile(file, JSON.stringify({ name: "CLI form", fields: [] }));
    const form = await run(["form", "create", "--workspace", ws.id, "--file", file]);
    await run(["form", "update", "--form", String(form.public_id), "--file", file]);
    const key = await run(["key", "create", "--workspace", ws.id, "--name", "k"]);
    await run(["key", "revoke", "--key", String(key.id)]);
    await run(["workspace", "set-plan", "--workspace", ws.id, "--plan", "pro"]);
    await run(["key", "list", "--workspace", ws.id]);
    await setFormRetention(env.deps, String(form.public_id), 30, { actor: "user:a@b.c" });
    await setDefaultRetention(env.deps, ws.id, 365, { actor: "user:a@b.c", ip: "2001:db8:1:2::1" });
    await assert.rejects(() =>
      setFormRetention(env.deps, String(form.public_id), 0, { actor: "x" })
    );
    await audit(env.deps, { workspaceId: ws.id, action: "sign_in", actor: "user:a@b.c" });
    const admin = await makeKey(env.deps, ws, { scopes: ["admin"] });
    const res = await env.request("/api/v1/server/audit?limit=100", {
      headers: { authorization: `Bearer ${admin}` },
    });
    const events = (await res.json()).events as {
      action: string;
      actor: string;
      ip: string | null;
      details: Record<string, unknown>;
    }[];
    assert.deepEqual(events.map((e) => e.action).reverse(), [
      "form.created",
      "form.changed",
      "key.created",
      "key.revoked",
      "workspace.plan_changed",
      "form.retention_changed",
      "workspace.retention_changed",
      "sign_in",
    ]);
    assert.equal(events[7].actor, "cli");
    assert.equal(events[7].details.form, form.public_id);
    assert.deepEqual(events[2].details, { from: null, to: 30, form: form.public_id });
    assert.equal(events[1].ip, "2001:db8:1::");
    assert.equal(events[3].details.plan, "pro");
    assert.equal(events[4].details.prefix, key.prefix);
    assert.ok(!JSON.stringify(events).includes(String(key.key)), "never the raw key");
    // Every action the log knows is one of the documented ones.
    for (const e of events) assert.ok((AUDIT_ACTIONS as readonly string[]).includes(e.action));
    await Deno.remove(file);
  } finally {
    env.close();
  }
});

Deno.test("privacy routes - a job is read only by keys of the mode it erased", async () => {
  const env = await testEnv({ RATE_LIMITS: LIMITS });
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const admin = await makeKey(env.deps, ws, { scopes: ["read", "admin"] });
    const testAdmin = await makeKey(env.deps, ws, { type: "test", scopes: ["read", "admin"] });
    const live = (await (await erase(env, admin, { email: "bob@example.com" })).json()).job;
    const test = (await (await erase(env, testAdmin, { email: "bob@example.com" })).json()).job;
    const unknown = await (await call(env, "/privacy/jobs/job_01aaaaaaaaaaaaaaaaaaaaaaaa", admin))
      .json();
    const crossed = [[testAdmin, live.id], [admin, test.id]] as const;
    for (const [key, id] of crossed) {
      const res = await call(env, `/privacy/jobs/${id}`, key);
      assert.equal(res.status, 404, id);
      assert.deepEqual(await res.json(), unknown);
    }
    for (const [key, id] of [[admin, live.id], [testAdmin, test.id]] as const) {
      const res = await call(env, `/privacy/jobs/${id}`, key);
      assert.equal(res.status, 200, id);
      assert.equal((await res.json()).job.id, id);
    }
  } finally {
    env.close();
  }
});
