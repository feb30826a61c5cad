import assert from "node:assert/strict";
import { createUser } from "@/lib/admin/users.ts";
import { listAudit } from "@/lib/privacy/audit.ts";
import { updateWorkspace } from "@/lib/workspaces/workspaces.ts";
import { runErase } from "@/lib/privacy/erase.ts";
import { postJson, testEnv } from "@/tests/helpers.ts";
import { page, PASSWORD, post, setup, signIn } from "@/tests/admin_support.ts";

const LIMITS = JSON.stringify({ submit: 100_000, workspace: 100_000 });

Deno.test("privacy admin - preview, erase with progress, export, audit log filter; viewers refused", async (t) => {
  const env = await testEnv({ RATE_LIMITS: LIMITS });
  try {
    const { ws, form } = await setup(env);
    for (
      const data of [{ name: "Ada", email: "ada@example.com" }, {
        name: "Bo",
        email: "bo@example.com",
      }]
    ) {
      const res = await postJson(env, `/api/v1/submit/p/${form.id}`, { data });
      assert.equal(res.status, 201);
      await res.body?.cancel();
    }
    const cookie = await signIn(env, "owner@example.com");

    await t.step("export downloads the person's submissions as JSON and is audited", async () => {
      const { csrf } = await page(env, cookie, "/admin/privacy");
      const res = await post(env, cookie, "/admin/privacy", {
        _csrf: csrf,
        action: "export",
        email: "ADA@example.com",
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-disposition") ?? "", /attachment/);
      const body = await res.json();
      assert.equal(body.submissions.length, 1);
      assert.equal(body.submissions[0].fields.name, "Ada");
      const { events } = await listAudit(env.deps, ws.id, {
        page: 1,
        limit: 20,
        action: "export.privacy",
      });
      assert.equal(events.length, 1);
      assert.deepEqual(events[0].details, { count: 1 });
    });

    await t.step(
      "erase previews the counts, then starts a job whose progress the page shows",
      async () => {
        const { csrf } = await page(env, cookie, "/admin/privacy");
        const bad = await post(env, cookie, "/admin/privacy", {
          _csrf: csrf,
          action: "preview",
          email: "nope",
        });
        assert.equal(bad.status, 400);
        assert.match(await bad.text(), /Enter an email address/);
        const preview = await post(env, cookie, "/admin/privacy", {
          _csrf: csrf,
          action: "preview",
          email: "ada@example.com",
        });
        assert.equal(preview.status, 200);
        const html = await preview.text();
        assert.match(html, /deletes 1 submission/);
        assert.match(html, new RegExp(`${form.id}\\): 1`));
        // The preview deletes nothing.
        assert.equal(
          (await listAudit(env.deps, ws.id, { page: 1, limit: 20, action: "privacy.erasure" }))
            .events.length,
          0,
        );
        const started = await post(env, cookie, "/admin/privacy", {
          _csrf: csrf,
          action: "erase",
          email: "ada@example.com",
        });
        assert.equal(started.status, 303);
        const to = started.headers.get("location") ?? "";
        const jobId = /job=(job_[0-9a-z]+)/.exec(to)?.[1];
        assert.ok(jobId, to);
        assert.match((await page(env, cookie, to)).html, /Running/);
        await runErase(env.deps, jobId);
        const done = (await page(env, cookie, `/admin/privacy?job=${jobId}`)).html;
        assert.match(done, /Done: 1 submission deleted/);
        assert.match(done, new RegExp(`${form.id}: 1 deleted`));
        const again = await post(env, cookie, "/admin/privacy", {
          _csrf: csrf,
          action: "preview",
          email: "ada@example.com",
        });
        assert.match(await again.text(), /Nothing would be deleted/);
      },
    );

    await t.step("the audit log lists events newest first and filters by action", async () => {
      const all = await page(env, cookie, "/admin/audit");
      assert.equal(all.res.status, 200);
      const actions = [...all.html.matchAll(/data-action="([^"]+)"/g)].map((m) => m[1]);
      assert.deepEqual(actions, [
        "privacy.erasure",
        "privacy.erasure",
        "export.privacy",
        "sign_in",
      ]);
      assert.match(all.html, /Erase job job_[0-9a-z]+ finished: 1 deleted/);
      const filtered = await page(env, cookie, "/admin/audit?action=export.privacy");
      const only = [...filtered.html.matchAll(/data-action="([^"]+)"/g)].map((m) => m[1]);
      assert.deepEqual(only, ["export.privacy"]);
      assert.match(filtered.html, /Exported 1 submission\(s\) of one person/);
      const bad = await page(env, cookie, "/admin/audit?action=nope");
      assert.equal(bad.res.status, 400);
    });

    await t.step("the workspace's default retention is set on the page and audited", async () => {
      const { csrf } = await page(env, cookie, "/admin/privacy");
      const bad = await post(env, cookie, "/admin/privacy", {
        _csrf: csrf,
        action: "default_retention",
        default_retention_days: "9999",
      });
      assert.equal(bad.status, 400);
      await bad.body?.cancel();
      const res = await post(env, cookie, "/admin/privacy", {
        _csrf: csrf,
        action: "default_retention",
        default_retention_days: "90",
      });
      assert.equal(res.status, 303);
      assert.match(
        (await page(env, cookie, "/admin/privacy")).html,
        /name="default_retention_days"[^>]*value="90"/,
      );
      const { events } = await listAudit(env.deps, ws.id, {
        page: 1,
        limit: 5,
        action: "workspace.retention_changed",
      });
      assert.deepEqual(events.map((e) => e.details), [{ from: null, to: 90 }]);
    });

    await t.step("viewers get 403 on both pages", async () => {
      await createUser(env.deps, {
        email: "viewer@example.com",
        password: PASSWORD,
        workspaceIds: [ws.id],
        role: "viewer",
      });
      const viewer = await signIn(env, "viewer@example.com");
      assert.equal((await page(env, viewer, "/admin/privacy")).res.status, 403);
      assert.equal((await page(env, viewer, "/admin/audit")).res.status, 403);
    });
  } finally {
    env.close();
  }
});

Deno.test("privacy admin - a form's retention, IP and user-agent settings, audited; the summary shows the next removal", async () => {
  const env = await testEnv({ RATE_LIMITS: LIMITS });
  try {
    const { ws, form } = await setup(env);
    const res = await postJson(env, `/api/v1/submit/p/${form.id}`, {
      data: { name: "Ada", email: "ada@example.com" },
    });
    assert.equal(res.status, 201);
    const subId = (await res.json()).submission_id as string;
    const cookie = await signIn(env, "owner@example.com");
    const before = await page(env, cookie, `/admin/forms/${form.id}`);
    assert.match(before.html, /Submissions are kept until someone deletes them/);
    const bad = await post(env, cookie, `/admin/forms/${form.id}`, {
      _csrf: before.csrf,
      action: "privacy",
      retention: "days",
      retention_days: "0",
      store_ip: "none",
    });
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
    const saved = await post(env, cookie, `/admin/forms/${form.id}`, {
      _csrf: before.csrf,
      action: "privacy",
      retention: "days",
      retention_days: "30",
      store_ip: "none",
    });
    assert.equal(saved.status, 303);
    const after = await page(env, cookie, `/admin/forms/${form.id}`);
    // The only submission goes 30 days after it arrived (shown to the minute).
    const sub =
      (await env.deps.kv.get<{ created_at: string }>(["submissions", form.id, subId])).value;
    assert.ok(sub);
    const due = new Date(Date.parse(sub.created_at) + 30 * 86_400_000).toISOString().slice(0, 16);
    const summary = /<p id="retention-summary">(.*?)<\/p>/.exec(after.html)?.[1] ?? "";
    assert.match(
      summary.replace(/<!-- -->/g, ""),
      new RegExp(`deleted once they are 30 days old; next removal <time datetime="${due}`),
      summary,
    );
    const stored = (await env.deps.kv.get<
      { retention_days: number; store_ip: string; store_user_agent: boolean }
    >(["forms", form.id])).value;
    const { events } = await listAudit(env.deps, ws.id, { page: 1, limit: 20 });
    const actions = events.map((e) => e.action);
    assert.ok(actions.includes("form.retention_changed"), actions.join());
    const changed = events.find((e) => e.action === "form.changed");
    assert.deepEqual(changed?.details, {
      form: form.id,
      store_ip: "none",
      store_user_agent: false,
    });
    assert.equal(stored?.retention_days, 30);
    assert.equal(stored?.store_ip, "none");
    assert.equal(stored?.store_user_agent, false);
  } finally {
    env.close();
  }
});

Deno.test("privacy admin - admin mutations write their audit events (keys, forms, deletes, plan)", async () => {
  const env = await testEnv({ RATE_LIMITS: LIMITS });
  try {
    const { ws, form } = await setup(env);
    const sub = await postJson(env, `/api/v1/submit/p/${form.id}`, {
      data: { name: "Ada", email: "ada@example.com" },
    });
    assert.equal(sub.status, 201);
    const subId = (await sub.json()).submission_id as string;
    const cookie = await signIn(env, "owner@example.com");
    const csrf = (await page(env, cookie, "/admin/forms")).csrf;
    const ok = async (res: Response) => {
      assert.equal(res.status, 303, await res.text());
      return res.headers.get("location") ?? "";
    };
    await ok(
      await post(env, cookie, "/admin/keys", [["_csrf", csrf], ["name", "CI"], ["scopes", "read"]]),
    );
    const keyId = /href="\/admin\/keys\/([^/"]+)\/revoke"/.exec(
      (await page(env, cookie, "/admin/keys")).html,
    )?.[1];
    assert.ok(keyId);
    await ok(await post(env, cookie, `/admin/keys/${keyId}/revoke`, { _csrf: csrf }));
    const fields = JSON.stringify([{ name: "email", type: "email", required: true }]);
    const created = await ok(
      await post(env, cookie, "/admin/forms/new", {
        _csrf: csrf,
        name: "Signup",
        fields_json: fields,
      }),
    );
    const newId = /\/admin\/forms\/([^/?]+)/.exec(created)?.[1] ?? "";
    await ok(
      await post(env, cookie, `/admin/forms/${newId}/edit`, {
        _csrf: csrf,
        name: "Signup 2",
        fields_json: fields,
      }),
    );
    await ok(
      await post(env, cookie, `/admin/forms/${form.id}/submissions`, {
        _csrf: csrf,
        action: "delete",
        mode: "live",
        ids: subId,
      }),
    );
    await ok(
      await post(env, cookie, `/admin/forms/${newId}/delete`, {
        _csrf: csrf,
        confirm_name: "Signup 2",
      }),
    );
    await ok(
      await post(env, cookie, "/admin/workspaces", {
        _csrf: csrf,
        action: "plan",
        workspace_id: ws.id,
        plan: "pro",
      }),
    );
    const { events } = await listAudit(env.deps, ws.id, { page: 1, limit: 50 });
    const by = (a: string) => events.filter((e) => e.action === a).map((e) => e.details);
    assert.equal(by("key.created").length, 1);
    assert.equal(by("key.revoked").length, 1);
    assert.deepEqual(by("form.created").map((d) => d.form), [newId]);
    assert.deepEqual(by("form.changed").map((d) => d.form), [newId]);
    assert.deepEqual(by("form.deleted").map((d) => d.form), [newId]);
    assert.deepEqual(by("submissions.deleted"), [{ form: form.id, mode: "live", count: 1 }]);
    assert.deepEqual(by("workspace.plan_changed"), [{ from: "starter", to: "pro" }]);
    assert.ok(events.every((e) => e.actor === "user:owner@example.com"));
    const log = (await page(env, cookie, "/admin/audit?action=form.deleted")).html;
    assert.match(log, /Form [^ ]+ &quot;Signup 2&quot; with 0 submission\(s\)\./);
  } finally {
    env.close();
  }
});

Deno.test("privacy admin - a suspended workspace refuses erase, export and retention changes; preview still reads", async () => {
  const env = await testEnv({ RATE_LIMITS: LIMITS });
  try {
    const { ws, form } = await setup(env);
    const res = await postJson(env, `/api/v1/submit/p/${form.id}`, {
      data: { name: "Ada", email: "ada@example.com" },
    });
    assert.equal(res.status, 201);
    await res.body?.cancel();
    const cookie = await signIn(env, "owner@example.com");
    const { csrf } = await page(env, cookie, "/admin/privacy");
    await updateWorkspace(env.deps, ws.id, { suspended: true });
    const email = "ada@example.com";
    const preview = await post(env, cookie, "/admin/privacy", {
      _csrf: csrf,
      action: "preview",
      email,
    });
    assert.equal(preview.status, 200);
    await preview.body?.cancel();
    for (const action of ["erase", "export"]) {
      const r = await post(env, cookie, "/admin/privacy", { _csrf: csrf, action, email });
      assert.equal(r.status, 403, action);
      await r.body?.cancel();
    }
    const fields = { _csrf: csrf, action: "default_retention", default_retention_days: "5" };
    const d = await post(env, cookie, "/admin/privacy", fields);
    assert.equal(d.status, 403);
    await d.body?.cancel();
    const f = await post(env, cookie, `/admin/forms/${form.id}`, {
      _csrf: csrf,
      action: "privacy",
      retention: "days",
      retention_days: "5",
      store_ip: "none",
    });
    assert.equal(f.status, 403);
    await f.body?.cancel();
    const { events } = await listAudit(env.deps, ws.id, { page: 1, limit: 20 });
    assert.deepEqual(events.map((e) => e.action), ["sign_in"]);
  } finally {
    env.close();
  }
});
