import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value } from "@/lib/kv/kv.ts";
import {
  CONTENT_SUSPICIOUS_P,
  linkStats,
  scoreSpam,
  type SpamInput,
} from "@/lib/protection/score.ts";
import { loadModel } from "@/lib/spam/load.ts";
import { scoreText } from "@/lib/spam/model.ts";
import { submissionText } from "@/lib/spam/submission_text.ts";
import type { CreatedBody, SubmissionDraft } from "@/lib/submissions/types.ts";
import { SubmissionWriter } from "@/lib/submissions/writer.ts";
import {
  makeForm,
  makeKey,
  makeWorkspace,
  postJson,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { assertCountersExact } from "@/tests/recount.ts";

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

Deno.test("spam - content joins behaviour in one verdict", async (t) => {
  const content = (p: number) => ({ p, tokens: [{ token: "viagra", weight: 5.2 }] });

  await t.step("the content figure adds 15, 40 or 70 and names itself in the reasons", () => {
    assert.deepEqual(scoreSpam(input({ content: content(0.3) })).score, 0);
    const leaning = scoreSpam(input({ content: content(0.8) }));
    assert.deepEqual([leaning.score, leaning.reasons, leaning.status], [
      15,
      ["content_0.8"],
      "completed",
    ]);
    assert.equal(scoreSpam(input({ content: content(0.95) })).status, "suspicious");
    const spam = scoreSpam(input({ content: content(0.9995) }));
    assert.equal(spam.status, "spam");
    assert.deepEqual(spam.content, content(0.9995));
    // Leaning content plus one behavioural signal is enough to flag.
    assert.equal(
      scoreSpam(input({ content: content(0.8) }, { fill_ms: 2_000 })).status,
      "suspicious",
    );
  });

  await t.step("links are weighed by the content: a quarter in long text that reads as ham", () => {
    const links = "see http://a.test/x http://b.test/y http://c.test/z www.a.test/w";
    const long = { message: `${"The patch applies cleanly to the 2.4 tree. ".repeat(10)}${links}` };
    assert.deepEqual(scoreSpam(input({ fields: long })).reasons, ["links_4"]);
    const hammy = scoreSpam(input({ fields: long, content: content(0.05) }));
    assert.deepEqual([hammy.score, hammy.status], [Math.round(25 / 4), "completed"]);
    assert.equal(scoreSpam(input({ fields: long, content: content(0.95) })).status, "suspicious");
    // In a short note the model cannot vouch for links: they count in full, and three
    // different sites add their own signal.
    const short = { message: `more at ${links}` };
    const v = scoreSpam(input({ fields: short, content: content(0.05) }));
    assert.deepEqual(v.reasons, ["links_4", "mostly_links", "link_sites_3"]);
    assert.deepEqual([v.score, v.status], [60, "suspicious"]);
  });

  await t.step("the model's thresholds and the form's score thresholds apply", () => {
    const thresholds = { leaning: 0.6, suspicious: 0.7, spam: 0.99 };
    assert.equal(scoreSpam(input({ content: content(0.72) })).status, "completed");
    assert.equal(
      scoreSpam(input({ content: content(0.72), contentThresholds: thresholds })).status,
      "suspicious",
    );
    const lenient = { suspicious_at: 50, spam_at: 101 };
    assert.equal(
      scoreSpam(input({ content: content(0.95), scoreThresholds: lenient })).status,
      "completed",
    );
    const never = scoreSpam(input({ content: content(0.9999), scoreThresholds: lenient }));
    assert.equal(never.status, "suspicious");
    assert.equal(
      scoreSpam(input({ content: content(0.8), scoreThresholds: { suspicious_at: 15 } })).status,
      "suspicious",
    );
  });
});

Deno.test("spam - ordinary contact messages read by the model stay completed", async () => {
  const model = await loadModel();
  const form = {
    fields: [
      { name: "name", type: "text" as const },
      { name: "email", type: "email" as const },
      { name: "topic", type: "select" as const },
      { name: "message", type: "textarea" as const },
    ],
  };
  const openers = ["Hi there,", "Hello,", "Good morning,", "Dear Sir or Madam,", ""];
  const bodies = [
    "I'd like a quote for 40 seats on the annual plan. Do you offer discounts for non-profits?",
    "Our invoice #2231 shows the wrong VAT number, could you reissue it?",
    "We met at the conference last week and I wanted to follow up about a pilot.",
    "Can I change the billing email on my account? The old address no longer works.",
    "Is there an on-premise option? Our security team asked. Details: https://intranet.example.org/req/7",
    "Please delete my data as per GDPR art. 17. Account email is the one above.",
    "Quick question about the API rate limits for the Pro plan.",
    "We'd like to integrate with our CRM. Compare https://crm.example.net and https://wiki.example.net/3 for what we need.",
  ];
  const closers = ["Thanks!", "Best regards", "Kind regards, and have a nice day", ""];
  const topics = ["sales", "support", "billing", "other"];
  let n = 0;
  let worst = 0;
  for (const o of openers) {
    for (const b of bodies) {
      for (const c of closers) {
        const fields = {
          name: "Priya Patel",
          email: "priya@mail.example",
          topic: topics[n++ % 4],
          message: [o, b, c].filter(Boolean).join("\n\n"),
        };
        const result = scoreText(model, submissionText(form, fields));
        worst = Math.max(worst, result.p);
        // At the thresholds the model carries, as the scoring job applies them.
        const v = scoreSpam(
          input({ fields, content: result, contentThresholds: model.thresholds }),
        );
        assert.equal(v.status, "completed", `${fields.message}: ${JSON.stringify(v)}`);
      }
    }
  }
  assert.equal(n, 160);
  assert.ok(worst < CONTENT_SUSPICIOUS_P, `worst p ${worst}`);
});

Deno.test("spam - each submission is stored with its verdict, counters exact", async (t) => {
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
    const read = async (id: string) => (await readSubmission(env.deps.kv, form.id, id))!;
    const count = async (b: "completed" | "suspicious" | "spam") =>
      u64Value((await env.deps.kv.get(keys.submissionCount(form.id, "live", b))).value);

    await t.step("statuses, scores and reasons are decided in the storing commit", async () => {
      const now = Date.now();
      const ok = await send({
        data: { name: "Ada", message: "Quote please for 40 chairs in oak" },
        rendered_at: now - 40_000,
      }, "198.51.100.1");
      const fast = await send({ data: { name: "Bo" }, rendered_at: now - 700 }, "198.51.100.2");
      const spam = await send({
        data: {
          name: "x",
          message: "http://a.test http://b.test http://c.test http://d.test http://e.test",
        },
        rendered_at: now - 300,
      }, "198.51.100.3");
      const dup = await send({
        data: { name: "Ada", message: "Quote please for 40 chairs in oak" },
        rendered_at: now - 30_000,
      }, "198.51.100.4");
      assert.equal((await read(ok)).status, "completed");
      // A clean submission keeps no verdict.
      assert.equal((await read(ok)).spam, undefined);
      assert.equal((await read(fast)).status, "suspicious");
      assert.equal((await read(spam)).status, "spam");
      assert.ok((await read(spam)).spam!.score >= 70);
      assert.equal((await read(dup)).status, "suspicious");
      assert.deepEqual((await read(dup)).spam?.reasons, ["duplicate_payload"]);
      assert.deepEqual(
        [await count("completed"), await count("suspicious"), await count("spam")],
        [1, 2, 1],
      );
      await assertCountersExact(env.deps.kv, form.id, "live");
    });

    await t.step("a burst from one address, within one batch and across batches", async () => {
      const first = await Promise.all(
        Array.from(
          { length: 4 },
          (_, i) => send({ data: { name: `N${i}`, message: `m${i}` } }, "198.51.100.9"),
        ),
      );
      const later: string[] = [];
      for (let i = 4; i < 8; i++) {
        later.push(await send({ data: { name: `N${i}`, message: `m${i}` } }, "198.51.100.9"));
      }
      const reasons = (await read(later.at(-1)!)).spam?.reasons ?? [];
      assert.ok(reasons.includes("burst_from_identity_7"), String(reasons));
      const firstStatuses = await Promise.all(first.map(async (id) => (await read(id)).status));
      assert.ok(firstStatuses.includes("completed"));
      await assertCountersExact(env.deps.kv, form.id, "live");
    });

    await t.step("submissions made with a key score 0 for address-based signals", async () => {
      const key = await makeKey(env.deps, ws);
      let last = "";
      for (let i = 0; i < 8; i++) {
        last = await send({ data: { name: `K${i}` } }, "10.0.0.1", {
          authorization: `Bearer ${key}`,
        });
      }
      assert.equal((await read(last)).status, "completed");
    });
  } finally {
    env.close();
  }
});

Deno.test("spam - the duplicate signal looks back 100 submissions", async (t) => {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps);
  const form = await makeForm(env.deps, ws);
  const write = async (name: string): Promise<CreatedBody> => {
    const draft: SubmissionDraft = {
      form,
      workspace: ws,
      mode: "live",
      fields: { name, email: "a@example.com" },
      metadata: {},
      files: [],
      signals: {},
      limits: [],
      size: 1024,
    };
    return (await env.deps.writer.write(draft)).body;
  };
  const fillers = async (n: number) => {
    for (let i = 0; i < n; i++) await write(`Filler ${i} ${Math.random()}`);
  };
  const reasons = async (b: CreatedBody): Promise<string[]> =>
    (await readSubmission(env.deps.kv, form.id, b.submission_id))!.spam
      ?.reasons ?? [];
  const message = (n: number) =>
    `Message ${n}: we would like a quote for forty seats on the annual plan, thank you.`;

  await t.step("a copy 100 submissions back is a duplicate, 101 back is not", async () => {
    assert.equal((await write(message(1))).submission_number, 1);
    await fillers(99);
    const copy = await write(message(1));
    assert.equal(copy.submission_number, 101);
    assert.ok((await reasons(copy)).includes("duplicate_payload"));
    await write(message(2));
    await fillers(100);
    assert.ok(!(await reasons(await write(message(2)))).includes("duplicate_payload"));
  });

  await t.step(
    "the context read from KV (a new writer) equals the one kept in memory",
    async () => {
      await write(message(3));
      await fillers(98);
      const fresh = new SubmissionWriter(env.deps);
      const draft = { form, workspace: ws, mode: "live" as const, metadata: {}, files: [] };
      const copy = await fresh.write({
        ...draft,
        fields: { name: message(3), email: "a@example.com" },
        signals: {},
        limits: [],
        size: 1024,
      });
      assert.ok((await reasons(copy.body)).includes("duplicate_payload"));
    },
  );
  env.close();
});

Deno.test("spam - instances on one KV see each other's submissions in the context", async () => {
  const dir = await Deno.makeTempDir();
  const a = await testEnv({ KV_PATH: `${dir}/kv.sqlite` });
  const b = await testEnv({ KV_PATH: `${dir}/kv.sqlite` });
  try {
    const ws = await makeWorkspace(a.deps);
    const form = await makeForm(a.deps, ws, {
      name: "Feedback",
      fields: [{ name: "message", type: "textarea" }],
    });
    const text = "We would like a quote for forty seats on the annual plan, thank you.";
    const send = async (env: TestEnv, message: string, ip: string) => {
      const res = await postJson(
        env,
        `/api/v1/submit/p/${form.id}`,
        { data: { message } },
        { "user-agent": "Mozilla/5.0" },
        ip,
      );
      assert.equal(res.status, 201);
      const id = (await res.json()).submission_id;
      return (await readSubmission(a.deps.kv, form.id, id))!;
    };
    // A caches the form's context; B then stores a message; A's next one must see it
    // (its cached sequence no longer holds, so its commit fails and it reads again).
    assert.equal(
      (await send(a, "Something else entirely, written by a person.", "192.0.2.1"))
        .status,
      "completed",
    );
    assert.equal((await send(b, text, "192.0.2.2")).status, "completed");
    const copy = await send(a, text, "192.0.2.3");
    assert.deepEqual(copy.spam?.reasons, ["duplicate_payload"]);
    assert.equal(copy.number, 3);
    await assertCountersExact(a.deps.kv, form.id, "live");
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});
