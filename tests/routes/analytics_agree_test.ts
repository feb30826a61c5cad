/**
 * One completion rate: the Server Data API's `completion_rate` and the admin overview's
 * "completion" figure come from the same counts through the same function, for forms whose
 * starts are missing (posts from servers or pages that send no events) and forms whose
 * visitors all start in a browser.
 */
import assert from "node:assert/strict";
import type { Form } from "@/lib/schemas.ts";
import { page, setup, signIn } from "@/tests/admin_support.ts";
import {
  contactData,
  makeForm,
  makeKey,
  postJson,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";

async function drive(env: TestEnv, form: Form, key: string, starts: number, submissions: number) {
  for (let i = 0; i < starts; i++) {
    const r = await postJson(env, `/api/v1/forms/p/${form.id}/events`, { type: "start" });
    assert.equal(r.status, 202);
    await r.body?.cancel();
  }
  for (let i = 0; i < submissions; i++) {
    const r = await postJson(env, `/api/v1/submit/p/${form.id}`, contactData(i), {
      authorization: `Bearer ${key}`,
    });
    assert.equal(r.status, 201, await r.text());
  }
}

Deno.test("analytics - the API and the admin show one completion rate", async (t) => {
  const env = await testEnv();
  try {
    const { ws } = await setup(env);
    const key = await makeKey(env.deps, ws);
    const cookie = await signIn(env, "owner@example.com");
    const cases = [
      { name: "1 start, 17 submissions", starts: 1, submissions: 17, rate: null, shown: "—" },
      { name: "no start, 2 submissions", starts: 0, submissions: 2, rate: null, shown: "—" },
      { name: "4 starts, 3 submissions", starts: 4, submissions: 3, rate: 0.75, shown: "75%" },
      { name: "3 starts, 1 submission", starts: 3, submissions: 1, rate: 0.3333, shown: "33.3%" },
      { name: "2 starts, 2 submissions", starts: 2, submissions: 2, rate: 1, shown: "100%" },
    ];
    for (const c of cases) {
      await t.step(c.name, async () => {
        const form = await makeForm(env.deps, ws);
        await drive(env, form, key, c.starts, c.submissions);
        const res = await env.request(`/api/v1/server/forms/${form.id}/analytics`, {
          headers: { authorization: `Bearer ${key}` },
        });
        const a = (await res.json()).analytics;
        assert.deepEqual([a.starts, a.submissions, a.completion_rate], [
          c.starts,
          c.submissions,
          c.rate,
        ]);
        const { html } = await page(env, cookie, `/admin/forms/${form.id}`);
        const shown = /<span class="stat-n">([^<]*)<\/span> completion/.exec(html)?.[1];
        assert.equal(shown, c.shown);
      });
    }
  } finally {
    env.close();
  }
});
