/**
 * Issue 18's admin rules that need no browser: the one-time key record, the overview's
 * figures saying what they count, JSON export, CSV file links, and a form's delete.
 */
import assert from "node:assert/strict";
import { takeKeyReveal } from "@/lib/admin/key_reveal.ts";
import { describeProblems } from "@/lib/admin/forms.ts";
import { keys } from "@/lib/kv/keys.ts";
import { utcDay } from "@/lib/kv/kv.ts";
import { seedSubmissions } from "@/bench/seed.ts";
import { page, post, setup, signIn } from "@/tests/admin_support.ts";
import { testEnv } from "@/tests/helpers.ts";

Deno.test("admin flows - figures, exports, key reveal, problems in words", async (t) => {
  const env = await testEnv();
  try {
    const { ws, form, owner } = await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    // 9 submissions (API-like: no Origin) and 1 start reported by a browser.
    const ids = await seedSubmissions(env.deps, form, 9);
    await env.deps.kv.set(
      keys.analytics(form.id, "live", utcDay(env.deps.now()), "starts"),
      new Deno.KvU64(1n),
    );

    await t.step("completion is not 100% from 1 start and 9 submissions", async () => {
      const { html } = await page(env, cookie, `/admin/forms/${form.id}`);
      assert.doesNotMatch(html, /100\.0%/);
      assert.match(html, /<span class="stat-n">—<\/span> completion/);
      assert.match(html, /<span class="stat-n">9<\/span> stored now/);
      assert.match(html, /<span class="stat-n">9<\/span> received/);
    });

    await t.step("JSON export is an array of the API's submission objects", async () => {
      const { res, html: body } = await page(env, cookie, `/admin/forms/${form.id}/export.json`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /application\/json/);
      assert.match(res.headers.get("content-disposition") ?? "", /\.json"/);
      const rows = JSON.parse(body) as { id: string; signals?: unknown }[];
      assert.deepEqual(rows.map((r) => r.id), [...ids].reverse());
      assert.equal(rows.some((r) => "signals" in r), false, "no request signals leak");
    });

    await t.step("the one-time key record is read once, by its creator only", async () => {
      const res = await post(env, cookie, "/admin/keys", [
        ["_csrf", (await page(env, cookie, "/admin/keys")).csrf],
        ["name", "Once"],
        ["scopes", "read"],
      ]);
      assert.equal(res.status, 303);
      const token = new URL(res.headers.get("location")!, "http://x").searchParams.get("created")!;
      assert.equal(await takeKeyReveal(env.deps, token, "usr_other", ws.id), null);
      const first = await takeKeyReveal(env.deps, token, owner.id, ws.id);
      assert.match(first?.key ?? "", /^fw_live_/);
      assert.equal(await takeKeyReveal(env.deps, token, owner.id, ws.id), null);
    });

    await t.step("schema problems read as the editor's words", () => {
      const fields = [{ name: "email", type: "email" as const, label: "Email" }];
      assert.deepEqual(
        describeProblems([
          "fields.0.maxLength: Invalid input: expected number, received string",
          "name: Too small: expected string to have >=1 characters",
        ], fields),
        ['Field 1 "Email", Max length: must be a number', "Form name: must not be empty"],
      );
    });

    await t.step("a form is deleted only with its name typed", async () => {
      const del = `/admin/forms/${form.id}/delete`;
      const { csrf, html } = await page(env, cookie, del);
      assert.match(html, /its 9\s*submissions/);
      const wrong = await post(env, cookie, del, { _csrf: csrf, confirm_name: "nope" });
      assert.equal(wrong.status, 400);
      assert.ok((await env.deps.kv.get(keys.form(form.id))).value);
      const ok = await post(env, cookie, del, { _csrf: csrf, confirm_name: form.name });
      assert.equal(ok.status, 303);
      assert.equal((await env.deps.kv.get(keys.form(form.id))).value, null);
      const left = await Array.fromAsync(
        env.deps.kv.list({ prefix: ["submission_counts", form.id] }),
      );
      assert.deepEqual(left, []);
      const subs = await Array.fromAsync(env.deps.kv.list({ prefix: keys.submissions(form.id) }));
      assert.deepEqual(subs, []);
    });
  } finally {
    env.close();
  }
});
