import assert from "node:assert/strict";
import { dispatch } from "../../lib/jobs/mod.ts";
import { keys } from "../../lib/kv_keys.ts";
import { u64Value } from "../../lib/kv.ts";
import type { Submission } from "../../lib/schemas.ts";
import { linkStats, scoreSpam, type SpamInput } from "../../lib/spam.ts";
import { makeForm, makeKey, makeWorkspace, postJson, testEnv } from "../helpers.ts";
import { assertCountersExact } from "../recount.ts";

function input(over: Partial<SpamInput> = {}, signals: SpamInput["signals"] = {}): SpamInput {
  return {
    signals: { ip: "203.0.113.5", user_agent: "Mozilla/5.0", fill_ms: 45_000, ...signals },
    fields: { name: "Ada Lovelace", message: "Hello, I would like a quote for 20 seats." },
    urlFields: new Set(),
    recentFromIdentity: 0,
    duplicate: false,
    ...over,
  };
}

Deno.test("spam - scoring is a pure function of the signals", async (t) => {
  await t.step("an ordinary submission scores 0 and is completed", () => {
    assert.deepEqual(scoreSpam(input()), { score: 0, reasons: [], status: "completed" });
  });

  await t.step("time to submit: under 1.5 s is suspicious, under 3 s counts", () => {
    assert.equal(scoreSpam(input({}, { fill_ms: 800, user_agent: "x" })).status, "suspicious");
    assert.equal(scoreSpam(input({}, { fill_ms: 2_000, user_agent: "x" })).score, 25);
    assert.equal(scoreSpam(input({}, { fill_ms: undefined, user_agent: "x" })).score, 0);
  });

  await t.step("links: count, density, url fields exempt", () => {
    const spammy = { message: "buy http://a.test http://b.test http://c.test www.d.test" };
    assert.deepEqual(linkStats(spammy, new Set()).links, 4);
    const v = scoreSpam(input({ fields: spammy }));
    assert.ok(v.reasons.includes("links_4") && v.reasons.includes("mostly_links"));
    assert.equal(v.status, "suspicious");
    assert.equal(
      scoreSpam(
        input({ fields: { site: "https://ada.example", msg: "hi" }, urlFields: new Set(["site"]) }),
      ).score,
      0,
    );
    assert.equal(
      scoreSpam(input({ fields: { msg: "see https://docs.example/page for details" } })).score,
      0,
    );
    const flood = "[url=http://x.test]x[/url] ".repeat(6);
    assert.equal(scoreSpam(input({ fields: { msg: flood } }, { fill_ms: 900 })).status, "spam");
  });

  await t.step("repeat failures, bursts, duplicates and low CAPTCHA scores add up", () => {
    assert.equal(scoreSpam(input({}, { failures: 1 })).score, 15);
    assert.equal(scoreSpam(input({}, { failures: 3 })).status, "suspicious");
    assert.equal(scoreSpam(input({ recentFromIdentity: 3 })).score, 15);
    assert.equal(scoreSpam(input({ recentFromIdentity: 12 })).status, "suspicious");
    assert.equal(scoreSpam(input({ duplicate: true })).status, "suspicious");
    assert.equal(scoreSpam(input({ duplicate: true, recentFromIdentity: 12 })).status, "spam");
    // Poll-like answers repeat by nature: a duplicate without a written message is no signal.
    const poll = { fields: { rating: "5", choice: "yes" }, duplicate: true };
    assert.deepEqual(scoreSpam(input(poll)), { score: 0, reasons: [], status: "completed" });
    assert.equal(
      scoreSpam(input({}, { captcha: { provider: "recaptcha", score: 0.5 } })).score,
      20,
    );
    assert.equal(
      scoreSpam(input({}, { captcha: { provider: "recaptcha", score: 0.95 } })).score,
      0,
    );
  });

  await t.step("a key-authenticated backend is not scored on its shared address", () => {
    const v = scoreSpam(
      input({ recentFromIdentity: 50 }, { via_key: true, user_agent: undefined }),
    );
    assert.equal(v.score, 0);
  });
});

Deno.test("spam - the scoring job sets status with exact counters, idempotently", async (t) => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, {
      name: "Feedback",
      fields: [
        { name: "name", type: "text", required: true },
        { name: "message", type: "textarea" },
      ],
    });
    const path = `/api/v1/submit/p/${form.id}`;
    const send = async (body: unknown, ip: string, headers: Record<string, string> = {}) => {
      const res = await postJson(env, path, body, { "user-agent": "Mozilla/5.0", ...headers }, ip);
      assert.equal(res.status, 201, await res.clone().text());
      return (await res.json()).submission_id as string;
    };
    const now = Date.now();
    const ids = {
      ok: await send(
        {
          data: { name: "Ada", message: "Quote please for 40 chairs in oak" },
          rendered_at: now - 40_000,
        },
        "198.51.100.1",
      ),
      fast: await send({ data: { name: "Bo" }, rendered_at: now - 700 }, "198.51.100.2"),
      spam: await send({
        data: {
          name: "x",
          message: "http://a.test http://b.test http://c.test http://d.test http://e.test",
        },
        rendered_at: now - 300,
      }, "198.51.100.3"),
      dup: await send(
        {
          data: { name: "Ada", message: "Quote please for 40 chairs in oak" },
          rendered_at: now - 30_000,
        },
        "198.51.100.4",
      ),
    };
    const read = async (id: string) =>
      (await env.deps.kv.get<Submission>(keys.submission(form.id, id))).value!;
    const count = async (b: "completed" | "suspicious" | "spam") =>
      u64Value((await env.deps.kv.get(keys.submissionCount(form.id, "live", b))).value);

    await t.step("before scoring everything is completed", async () => {
      assert.equal(await count("completed"), 4);
      assert.equal((await read(ids.ok)).spam, undefined);
    });

    const job = { type: "score_submissions", form_id: form.id, ids: Object.values(ids) };
    await t.step(
      "the job moves statuses, keeps score and reasons, counters stay exact",
      async () => {
        await dispatch(env.deps, job);
        assert.equal((await read(ids.ok)).status, "completed");
        // A clean submission costs no write: nothing to keep.
        assert.equal((await read(ids.ok)).spam, undefined);
        assert.equal((await read(ids.fast)).status, "suspicious");
        assert.equal((await read(ids.spam)).status, "spam");
        const dup = await read(ids.dup);
        assert.equal(dup.status, "suspicious");
        assert.deepEqual(dup.spam?.reasons, ["duplicate_payload"]);
        assert.ok((await read(ids.spam)).spam!.score >= 70);
        assert.deepEqual(
          [await count("completed"), await count("suspicious"), await count("spam")],
          [
            1,
            2,
            1,
          ],
        );
        await assertCountersExact(env.deps.kv, form.id, "live");
      },
    );

    await t.step("a second delivery changes nothing (either job form)", async () => {
      const before = await read(ids.spam);
      await dispatch(env.deps, job);
      const numbers = await Promise.all(
        Object.values(ids).map(async (id) => (await read(id)).number),
      );
      await dispatch(env.deps, { ...job, mode: "live", last_number: Math.max(...numbers) });
      assert.deepEqual(await read(ids.spam), before);
      assert.deepEqual([await count("completed"), await count("suspicious"), await count("spam")], [
        1,
        2,
        1,
      ]);
      await assertCountersExact(env.deps.kv, form.id, "live");
    });

    await t.step("unknown ids and a burst from one address", async () => {
      await dispatch(env.deps, { ...job, ids: ["sub_missing"] });
      const burst: string[] = [];
      for (let i = 0; i < 8; i++) {
        burst.push(await send({ data: { name: `N${i}`, message: `m${i}` } }, "198.51.100.9"));
      }
      await dispatch(env.deps, { ...job, ids: burst });
      const last = await read(burst.at(-1)!);
      assert.ok(last.spam!.reasons.includes("burst_from_identity_7"), String(last.spam!.reasons));
      assert.equal((await read(burst[0])).status, "completed");
      await assertCountersExact(env.deps.kv, form.id, "live");
    });

    await t.step("submissions made with a key score 0 for address-based signals", async () => {
      const key = await makeKey(env.deps, ws);
      const viaKey: string[] = [];
      for (let i = 0; i < 8; i++) {
        viaKey.push(
          await send({ data: { name: `K${i}` } }, "10.0.0.1", { authorization: `Bearer ${key}` }),
        );
      }
      await dispatch(env.deps, { ...job, ids: viaKey });
      assert.equal((await read(viaKey.at(-1)!)).status, "completed");
    });
  } finally {
    env.close();
  }
});

Deno.test("spam - the writer's own job reads its context from the batch's last number", async () => {
  const env = await testEnv({ RATE_LIMITS: '{"submit":100000}' });
  const form = await makeForm(env.deps, await makeWorkspace(env.deps), {
    name: "Contact",
    fields: [{ name: "name", type: "text" }, { name: "message", type: "textarea" }],
  });
  const jobs: unknown[] = [];
  // Capture the job the writer enqueues in its commit by listening on this KV's queue.
  const done = new Promise<void>((resolve) => {
    env.deps.kv.listenQueue((msg) => {
      jobs.push(msg);
      resolve();
    });
  });
  const res = await postJson(env, `/api/v1/submit/p/${form.id}`, {
    data: {
      name: "x",
      message: "http://a.test http://b.test http://c.test http://d.test http://e.test",
    },
    rendered_at: Date.now() - 300,
  });
  const { submission_id } = await res.json();
  await done;
  const job = jobs[0] as { mode: string; last_number: number; ids: string[] };
  assert.equal(job.mode, "live");
  assert.equal(job.last_number, 1);
  assert.deepEqual(job.ids, [submission_id]);
  await dispatch(env.deps, jobs[0]);
  const stored = (await env.deps.kv.get<Submission>(keys.submission(form.id, submission_id)))
    .value!;
  assert.equal(stored.status, "spam");
  await assertCountersExact(env.deps.kv, form.id, "live");
  env.close();
});
