import assert from "node:assert/strict";
import { dispatch } from "@/lib/jobs/mod.ts";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value, utcDay } from "@/lib/kv/kv.ts";
import { audit, listAudit, sweepAudit } from "@/lib/privacy/audit.ts";
import { dailyRetentionSweep, retainForm, retentionSummary } from "@/lib/privacy/retention.ts";
import { nextRemoval } from "@/lib/privacy/settings.ts";
import { fileKey } from "@/lib/uploads/grants.ts";
import { contactData, makeForm, makeWorkspace, postJson, testEnv } from "@/tests/helpers.ts";
import { assertCountersExact, recordsOf } from "@/tests/recount.ts";
import { listSubmissions, submissionListQuerySchema } from "@/lib/submissions/query.ts";
import {
  FILES_FORM,
  grantFor,
  putBytes,
  SAMPLES,
  submitFiles,
  uploadEnv,
} from "@/tests/upload_fixtures.ts";

const DAY = 86_400_000;

Deno.test("retention - deletes exactly the expired submissions and their files across a restart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-retention-" });
  const storageDir = `${dir}/files`;
  const env = { KV_PATH: `${dir}/kv.sqlite`, LOCAL_STORAGE_DIR: storageDir };
  const u = await uploadEnv("local", env);
  let second: Awaited<ReturnType<typeof testEnv>> | null = null;
  try {
    const ws = await makeWorkspace(u.deps, "business");
    const form = await makeForm(u.deps, ws, { ...FILES_FORM, retention_days: 7 });
    const size = SAMPLES.pdf.byteLength;
    const oldPaths: string[] = [];
    const oldIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const g = await grantFor(u, form.id, "fld_cv", `old${i}.pdf`, "application/pdf", size);
      assert.equal(await putBytes(u, g, SAMPLES.pdf, "application/pdf"), 200);
      const r = await submitFiles(u, form.id, { name: `old ${i}`, cv: { path: g.path } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      oldPaths.push(g.path);
      oldIds.push(r.body.submission_id);
    }
    for (let i = 0; i < 9; i++) {
      const r = await submitFiles(u, form.id, { name: `old plain ${i}` });
      assert.equal(r.status, 201);
      oldIds.push(r.body.submission_id);
    }
    u.skew.ms = 8 * DAY;
    const g = await grantFor(u, form.id, "fld_cv", "new.pdf", "application/pdf", size);
    assert.equal(await putBytes(u, g, SAMPLES.pdf, "application/pdf"), 200);
    const fresh = await submitFiles(u, form.id, { name: "new", cv: { path: g.path } });
    assert.equal(fresh.status, 201);
    const freshPlain = await submitFiles(u, form.id, { name: "new plain" });

    const before = u.deps.now();
    const overdue = await retentionSummary(u.deps, form);
    assert.equal(overdue.retention_days, 7);
    // The oldest are overdue: the next removal is now (read between the two clock reads).
    const due = Date.parse(overdue.next_removal ?? "");
    assert.ok(due >= before && due <= u.deps.now(), overdue.next_removal ?? "null");
    // First process: one bounded run, then it "crashes" (deps dropped, KV closed).
    assert.equal(await retainForm(u.deps, form.id, 5), true, "work must be left after 5");
    assert.equal((await recordsOf(u.deps.kv, form.id, "live")).length, 14 - 5);
    u.env.close(); // not u.close(): that also removes the storage directory

    // A new process on the same KV and storage finishes the work, its queue running.
    second = await testEnv({ ...env, RATE_LIMITS: "{}" }, { now: () => Date.now() + 8 * DAY });
    const deps = second.deps;
    const listening = deps.kv.listenQueue((msg) => dispatch(deps, msg));
    let runs = 0;
    while (await retainForm(deps, form.id, 5)) runs++;
    assert.ok(runs <= 2, `runs ${runs}`);
    const left = await recordsOf(deps.kv, form.id, "live");
    assert.deepEqual(
      left.map((s) => s.id).sort(),
      [fresh.body.submission_id, freshPlain.body.submission_id].sort(),
    );
    await assertCountersExact(deps.kv, form.id, "live");
    for (const id of oldIds) {
      const q = submissionListQuerySchema.parse({ search: id });
      assert.equal((await listSubmissions(deps, form, "live", q)).pagination.total, 0);
      assert.equal((await deps.kv.get(keys.submission(form.id, id))).value, null);
    }
    // Files are removed by the delete_files jobs the deletes enqueued (both processes').
    for (let i = 0; i < 300; i++) {
      const heads = await Promise.all(oldPaths.map((p) => deps.storage.head(fileKey(p))));
      if (heads.every((h) => h === null)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    for (const p of oldPaths) assert.equal(await deps.storage.head(fileKey(p)), null, p);
    assert.equal((await deps.storage.head(fileKey(g.path)))?.size, size);
    // Running again changes nothing (idempotent).
    assert.equal(await retainForm(deps, form.id, 5), false);
    assert.equal((await recordsOf(deps.kv, form.id, "live")).length, 2);
    const summary = await retentionSummary(deps, form);
    const oldestLeft = (await recordsOf(deps.kv, form.id, "live")).at(-1)!.created_at;
    assert.equal(summary.next_removal, new Date(Date.parse(oldestLeft) + 7 * DAY).toISOString());
    const events = await listAudit(deps, ws.id, {
      page: 1,
      limit: 100,
      action: "submissions.deleted",
    });
    const counted = events.events.reduce((n, e) => n + (e.details.count as number), 0);
    assert.equal(counted, 12);
    second.close();
    second = null;
    await listening.catch(() => {});
  } finally {
    second?.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("retention - analytics older than the plan's days go; forms without retention keep submissions", async () => {
  let clock = Date.parse("2026-03-01T12:00:00Z");
  const env = await testEnv({}, { now: () => clock });
  try {
    const ws = await makeWorkspace(env.deps, "starter"); // 90 analytics days
    const form = await makeForm(env.deps, ws);
    assert.equal(form.retention_days, null);
    const res = await postJson(env, `/api/v1/submit/p/${form.id}`, contactData(1));
    assert.equal(res.status, 201);
    const kept = utcDay(clock - 89 * DAY);
    const dropped = utcDay(clock - 90 * DAY);
    await env.deps.kv.set(keys.analytics(form.id, "live", kept, "views"), new Deno.KvU64(3n));
    await env.deps.kv.set(keys.analytics(form.id, "live", dropped, "views"), new Deno.KvU64(4n));
    await env.deps.kv.set(
      keys.analytics(form.id, "test", "2020-01-01", "starts"),
      new Deno.KvU64(1n),
    );
    assert.equal(await retainForm(env.deps, form.id), false);
    const left: string[] = [];
    for await (const e of env.deps.kv.list({ prefix: ["analytics", form.id] })) {
      left.push(`${e.key.slice(2).map(String).join("/")}=${u64Value(e.value)}`);
    }
    assert.deepEqual(
      left.sort(),
      [`live/${kept}/views=3`, `live/${utcDay(clock)}/submissions=1`].sort(),
    );
    clock += 400 * DAY;
    assert.equal(await retainForm(env.deps, form.id), false);
    assert.equal((await recordsOf(env.deps.kv, form.id, "live")).length, 1);
  } finally {
    env.close();
  }
});

Deno.test("retention - the daily sweep enqueues a job per form and drops expired audit events", async () => {
  let clock = Date.parse("2026-01-01T00:00:00Z");
  const env = await testEnv({}, { now: () => clock });
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    await makeForm(env.deps, ws);
    await makeForm(env.deps, ws, { name: "Other", fields: [], retention_days: 30 });
    await audit(env.deps, { workspaceId: ws.id, action: "key.created", actor: "cli" });
    clock += 200 * DAY;
    await audit(env.deps, { workspaceId: ws.id, action: "key.revoked", actor: "cli" });
    clock += 201 * DAY; // the first is 401 days old, the second 201
    assert.equal(await dailyRetentionSweep(env.deps), 2);
    const left = await listAudit(env.deps, ws.id, { page: 1, limit: 10 });
    assert.deepEqual(left.events.map((e) => e.action), ["key.revoked"]);
    assert.equal(await sweepAudit(env.deps, ws.id), 0);
  } finally {
    env.close();
  }
});

Deno.test("retention - nextRemoval", () => {
  const now = Date.parse("2026-05-01T00:00:00Z");
  assert.equal(nextRemoval({ retention_days: null }, "2026-01-01T00:00:00Z", now), null);
  assert.equal(nextRemoval({ retention_days: 30 }, null, now), null);
  assert.equal(
    nextRemoval({ retention_days: 30 }, "2026-04-20T00:00:00.000Z", now),
    "2026-05-20T00:00:00.000Z",
  );
  // Already overdue: due now (the next daily run).
  assert.equal(
    nextRemoval({ retention_days: 1 }, "2026-01-01T00:00:00.000Z", now),
    new Date(now).toISOString(),
  );
});
