/**
 * The admin's words say what is true: counts agree with their nouns ("1 start"), the admin
 * scope lists all it grants, the two retentions (analytics counts, submissions) each say
 * what they keep, and plan caps on a self-hosted server say where they bite and how an
 * instance owner changes the plan (in the pages, the refusals and self-hosting.md).
 */
import assert from "node:assert/strict";
import { count, plural } from "@/components/count.ts";
import { createUser } from "@/lib/admin/users.ts";
import { reasonInWords } from "@/lib/admin/signals.ts";
import { createApiKey } from "@/lib/keys/api_keys.ts";
import { keys } from "@/lib/kv/keys.ts";
import { utcDay } from "@/lib/kv/kv.ts";
import { moreFields } from "@/lib/notify/destinations/message.ts";
import { PLAN_NAMES, planOf } from "@/lib/workspaces/plans.ts";
import { page, PASSWORD, post, setup, signIn } from "@/tests/admin_support.ts";
import { contactData, makeKey, makeWorkspace, postJson, testEnv } from "@/tests/helpers.ts";
import { ROOT } from "@/tests/processes.ts";

/** The page's words, tags dropped and spaces collapsed. */
function words(html: string): string {
  return html.replace(/<script[\s\S]*?<\/script>/g, " ").replace(/<!-- -->/g, "")
    .replace(/<[^>]+>/g, " ").replace(/&nbsp;|\s+/g, " ").replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** "1 starts" and the like: a count of one with a plural noun. */
const ONE_PLURAL =
  /\b1 (views|starts|submissions|days|keys|active keys|API keys|files|jobs|links|fields|minutes|seconds|pages|rows|matches|forms)\b/g;

Deno.test("wording - counts agree with their nouns", async (t) => {
  await t.step("the helper", () => {
    assert.deepEqual([count(0, "start"), count(1, "start"), count(1204, "start")], [
      "0 starts",
      "1 start",
      "1,204 starts",
    ]);
    assert.equal(plural(1, "entry", "entries"), "entry");
    assert.equal(moreFields(1), "…and 1 more field: see the submission in Formwell.");
    assert.equal(reasonInWords("links_1"), "1 link in the values");
    assert.equal(
      reasonInWords("burst_from_identity_1"),
      "1 submission from the same sender just before",
    );
  });

  await t.step("a form with 1 view, 1 start and 1 submission, kept 1 day", async () => {
    const env = await testEnv();
    try {
      const { ws, form } = await setup(env);
      const key = await makeKey(env.deps, ws);
      for (const type of ["view", "start"]) {
        await (await postJson(env, `/api/v1/forms/p/${form.id}/events`, { type })).body?.cancel();
      }
      const s = await postJson(env, `/api/v1/submit/p/${form.id}`, contactData(1), {
        authorization: `Bearer ${key}`,
      });
      assert.equal(s.status, 201);
      await s.body?.cancel();
      const cookie = await signIn(env, "owner@example.com");
      const { csrf } = await page(env, cookie, `/admin/forms/${form.id}`);
      const saved = await post(env, cookie, `/admin/forms/${form.id}`, {
        _csrf: csrf,
        action: "privacy",
        retention: "days",
        retention_days: "1",
        store_ip: "none",
      });
      assert.equal(saved.status, 303);
      const text = words((await page(env, cookie, `/admin/forms/${form.id}`)).html);
      assert.match(text, /\b1 view\b/);
      assert.match(text, /\b1 start\b/);
      assert.match(text, /1 day old/);
      assert.deepEqual(text.match(ONE_PLURAL), null);
    } finally {
      env.close();
    }
  });
});

Deno.test("wording - the admin scope says all it grants", async () => {
  const env = await testEnv();
  try {
    await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const text = words((await page(env, cookie, "/admin/keys")).html);
    const admin = /admin read, plus ([^.]*?) (?:Create key|Creating)/.exec(text)?.[1] ?? "";
    for (const grant of ["delete submissions", "forms", "webhooks", "erase", "audit log"]) {
      assert.ok(admin.includes(grant), `the admin scope's help names ${grant}: "${admin}"`);
    }
  } finally {
    env.close();
  }
});

Deno.test("wording - analytics and submission retention each say what they keep", async () => {
  const env = await testEnv();
  try {
    const { form } = await setup(env);
    await env.deps.kv.set(
      keys.analytics(form.id, "live", utcDay(env.deps.now()), "views"),
      new Deno.KvU64(2n),
    );
    const cookie = await signIn(env, "owner@example.com");
    const text = words((await page(env, cookie, `/admin/forms/${form.id}`)).html);
    assert.match(text, /starter plan keeps these daily counts for 90 days, then drops them/);
    assert.match(text, /never deletes a submission/);
    assert.match(text, /Submissions are kept until someone deletes them/);
    assert.match(text, /analytics counts above are kept apart, for the plan's 90 days/);
    assert.doesNotMatch(text, /retention on the starter plan|Keeps submissions forever/);
  } finally {
    env.close();
  }
});

Deno.test("wording - plan caps say where they bite and how a plan changes", async (t) => {
  const env = await testEnv();
  try {
    const { ws } = await setup(env);
    const free = await makeWorkspace(env.deps, "free");
    await createUser(env.deps, {
      email: "member@example.com",
      password: PASSWORD,
      workspaceIds: [free.id],
      role: "owner",
    });
    await createUser(env.deps, {
      email: "root@example.com",
      password: PASSWORD,
      workspaceIds: [free.id],
      role: "owner",
      owner: true,
    });

    await t.step("a Free workspace's keys page says how its plan changes", async () => {
      const owner = words(
        (await page(env, await signIn(env, "root@example.com"), "/admin/keys"))
          .html,
      );
      assert.match(owner, /on the free plan\. Change its plan on the Workspaces page/);
      const member = words(
        (await page(env, await signIn(env, "member@example.com"), "/admin/keys")).html,
      );
      assert.match(member, /Ask an instance owner of this server to change its plan/);
    });

    await t.step("the key cap's refusal says who raises it and how", async () => {
      await createApiKey(env.deps, { workspaceId: ws.id, name: "one" });
      await createApiKey(env.deps, { workspaceId: ws.id, name: "two" });
      await assert.rejects(
        () => createApiKey(env.deps, { workspaceId: ws.id, name: "three" }),
        /allows 2 active API keys\. Revoke one, or ask an instance owner .*set-plan/,
      );
    });

    await t.step("the Workspaces page shows each plan's limits", async () => {
      const cookie = await signIn(env, "owner@example.com");
      const text = words((await page(env, cookie, "/admin/workspaces")).html);
      assert.match(text, /free: no API keys · 1,000 submissions a month/);
      assert.match(text, /starter: 2 API keys · 10,000 submissions a month/);
      assert.match(text, /a plan bills nothing/);
    });

    await t.step("self-hosting.md's plan table is the plan table", async () => {
      const doc = await Deno.readTextFile(`${ROOT}docs/self-hosting.md`);
      assert.match(doc, /cli workspace set-plan --workspace ws_\.\.\. --plan/);
      for (const name of PLAN_NAMES) {
        const p = planOf(name);
        const row = new RegExp(`^\\| ${name} +\\| (.+?) +\\| (.+?) +\\| (\\d+) MB +\\|`, "m")
          .exec(doc);
        assert.ok(row, `a row for ${name}`);
        assert.equal(row[1], p.maxActiveKeys ? String(p.maxActiveKeys) : "none", name);
        assert.equal(
          row[2],
          p.submissionsPerMonth?.toLocaleString("en") ?? "unlimited",
          name,
        );
        assert.equal(Number(row[3]), p.perFileMB, name);
        assert.match(doc, new RegExp(`\\| ${name} .*\\| ${p.analyticsRetentionDays} days +\\|`));
      }
    });
  } finally {
    env.close();
  }
});
