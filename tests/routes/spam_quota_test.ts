import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value, utcMonth } from "@/lib/kv/kv.ts";
import {
  contactData,
  makeForm,
  makeWorkspace,
  postBotLike,
  postJson,
  testEnv,
} from "@/tests/helpers.ts";

Deno.test("monthly quota - submissions scored spam do not count", async () => {
  const env = await testEnv({ RATE_LIMITS: JSON.stringify({ submit: 100_000 }) });
  try {
    const ws = await makeWorkspace(env.deps, "free"); // 1,000 a month
    const form = await makeForm(env.deps, ws, {
      name: "Contact",
      fields: [
        { name: "name", type: "text", required: true },
        { name: "email", type: "email", required: true },
        { name: "message", type: "textarea" },
      ],
      honeypot: "_gotcha",
    });
    const quota = keys.monthlySubmissions(ws.id, utcMonth(env.deps.now()));
    const used = async () => u64Value((await env.deps.kv.get(quota)).value);
    const statuses: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await postBotLike(env, form.id, i);
      assert.equal(res.status, 201, await res.clone().text());
      const id = (await res.json()).submission_id;
      statuses.push(
        (await readSubmission(env.deps.kv, form.id, id))!.status,
      );
    }
    const spam = statuses.filter((s) => s === "spam").length;
    assert.ok(spam > 0, `statuses: ${statuses.join(",")}`);
    assert.equal(await used(), statuses.length - spam);
    // Ordinary submissions still count, one each.
    const before = await used();
    const ok = await postJson(
      env,
      `/api/v1/submit/p/${form.id}`,
      contactData(1),
      {},
      "198.51.100.4",
    );
    assert.equal(ok.status, 201);
    assert.equal(await used(), before + 1);
  } finally {
    env.close();
  }
});
