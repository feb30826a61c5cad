/**
 * The admin System page: owners only; it shows the last backup, the job backlog, the
 * undelivered jobs (a retry enqueues one again) and the versions.
 */
import assert from "node:assert/strict";
import { createUser } from "@/lib/admin/users.ts";
import { keys } from "@/lib/kv/keys.ts";
import { createBackup } from "@/lib/ops/backup.ts";
import { systemStatus } from "@/lib/ops/system.ts";
import { testEnv } from "@/tests/helpers.ts";
import { page, PASSWORD, post, setup, signIn } from "@/tests/admin_support.ts";

Deno.test("admin system - owners see backups, backlog, undelivered jobs and retry one", async () => {
  const env = await testEnv({ JOBS: "table" });
  const dir = await Deno.makeTempDir({ prefix: "formwell-system-" });
  try {
    const { ws, form } = await setup(env);
    await createUser(env.deps, {
      email: "member@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "owner",
    });
    const member = await signIn(env, "member@example.com");
    const denied = await page(env, member, "/admin/system");
    assert.equal(denied.res.status, 403);
    assert.ok(!(await page(env, member, "/admin/forms")).html.includes('href="/admin/system"'));

    const owner = await signIn(env, "owner@example.com");
    let view = await page(env, owner, "/admin/system");
    assert.equal(view.res.status, 200);
    assert.match(view.html, /href="\/admin\/system"/);
    assert.match(view.html, /No backup recorded/);
    assert.match(view.html, /Undelivered jobs \(0\)/);

    const backup = await createBackup(env.deps.kv, env.deps.config, `${dir}/b.tar`);
    await env.deps.kv.set(keys.undelivered("job_test1"), { type: "retention", form_id: form.id });
    await env.deps.kv.set(keys.undelivered("job_test2"), {
      type: "send_account_mail",
      to: "x@example.com",
      subject: "Reset",
      text: "https://example.test/reset/SECRET-LINK",
      attempt: 5,
    });
    const waiting = (await systemStatus(env.deps)).backlog.pending!;
    view = await page(env, owner, "/admin/system");
    assert.ok(view.html.includes(backup.path), "the last backup's file is shown");
    assert.match(view.html, /Undelivered jobs \(2\)/);
    assert.match(view.html, /retention/);
    assert.ok(!view.html.includes("SECRET-LINK"), "an account mail's text is not shown");
    assert.ok(view.html.includes(`${waiting} jobs waiting`));
    assert.ok(view.html.includes(Deno.version.deno));
    assert.match(view.html, /in-memory/);

    const res = await post(env, owner, "/admin/system", {
      _csrf: view.csrf,
      action: "retry",
      job_id: "job_test1",
    });
    assert.equal(res.status, 303);
    assert.match(res.headers.get("location") ?? "", /notice=job_retried/);
    assert.equal((await env.deps.kv.get(keys.undelivered("job_test1"))).versionstamp, null);
    const after = await systemStatus(env.deps);
    assert.equal(after.backlog.pending, waiting + 1, "the job is due again");
    assert.equal(after.undeliveredTotal, 1);
    const due = await Array.fromAsync(env.deps.kv.list({ prefix: keys.jobsDue() }));
    assert.ok(due.some((e) => (e.value as { job: { type: string } }).job.type === "retention"));

    const again = await post(env, owner, "/admin/system", {
      _csrf: view.csrf,
      action: "retry",
      job_id: "job_test1",
    });
    assert.equal(again.status, 404);
    await env.deps.kv.set(keys.undelivered("job_bad"), { type: "no_such_job" });
    const bad = await post(env, owner, "/admin/system", {
      _csrf: view.csrf,
      action: "retry",
      job_id: "job_bad",
    });
    assert.equal(bad.status, 400);
    assert.notEqual((await env.deps.kv.get(keys.undelivered("job_bad"))).versionstamp, null);
    const byMember = await post(env, member, "/admin/system", {
      _csrf: (await page(env, member, "/admin/forms")).csrf,
      action: "retry",
      job_id: "job_test2",
    });
    assert.equal(byMember.status, 403);
  } finally {
    env.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("admin system - the backlog of KV queues is read from a local KV file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-system-q-" });
  const env = await testEnv({ KV_PATH: `${dir}/q.kv` });
  try {
    assert.equal(env.deps.jobs.mode, "queue");
    const before = (await systemStatus(env.deps)).backlog.pending!;
    const op = env.deps.kv.atomic();
    env.deps.jobs.enqueue(op, { type: "retention", form_id: "frm_x" }, { delay: 600_000 });
    assert.ok((await op.commit()).ok);
    const after = await systemStatus(env.deps);
    assert.equal(after.backlog.pending, before + 1);
    assert.ok(after.backlog.oldestDueAt! > Date.now() - 1000);
    assert.equal(after.versions.kv, "local file (SQLite)");
  } finally {
    env.close();
    await Deno.remove(dir, { recursive: true });
  }
});
