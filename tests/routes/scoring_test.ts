import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value } from "@/lib/kv/kv.ts";
import {
  makeForm,
  makeKey,
  makeWorkspace,
  postBotLike,
  postJson,
  testEnv,
} from "@/tests/helpers.ts";
import { assertCountersExact } from "@/tests/recount.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import { within } from "@/tests/processes.ts";
import { rng } from "@/bench/soak/bad_util.ts";

const FIRST = [
  "Ada",
  "Bo",
  "Chloé",
  "Dmitri",
  "Eun-ji",
  "Farah",
  "Gustavo",
  "Hana",
  "Ivo",
  "Jun",
  "Kwame",
  "Lena",
  "Mateo",
  "Nia",
  "Oskar",
  "Priya",
  "Quinn",
  "Rosa",
  "Sven",
  "Tariq",
  "Uma",
  "Viktor",
  "Wen",
  "Yusuf",
  "Zoë",
];
const LAST = [
  "Lovelace",
  "Okafor",
  "Müller",
  "Ivanova",
  "Kim",
  "Haddad",
  "Silva",
  "Sato",
  "Novak",
  "Chen",
  "Mensah",
  "Berg",
  "García",
  "Adeyemi",
  "Lindqvist",
  "Patel",
  "O'Brien",
  "Rossi",
  "Nilsen",
  "Rahman",
];
const OPENERS = ["Hi there,", "Hello,", "Good morning,", "Hey team,", "Dear Sir or Madam,", ""];
const BODIES = [
  "I'd like a quote for {n} seats on the annual plan. Do you offer discounts for non-profits?",
  "Our invoice #{n} shows the wrong VAT number, could you reissue it?",
  "The export to CSV stops at {n} rows. Is that a known limit?",
  "We met at the conference last week and I wanted to follow up about a pilot.",
  "Can I change the billing email on my account? The old address no longer works.",
  "Your docs at https://docs.example.com/guide/{n} mention a webhook retry setting I can't find.",
  "Love the product! Small bug: the date picker shows Sunday first even with a German locale.",
  "Is there an on-premise option? Our security team asked. Details: https://intranet.example.org/req/{n}",
  "Please delete my data as per GDPR art. 17. Account email is the one above.",
  "Quick question about the API rate limits for the Pro plan.",
  "We'd like to integrate with our CRM. Compare https://crm.example.net and https://wiki.example.net/{n} for what we need.",
  "Thanks for the fast support yesterday, everything works now.",
];
const CLOSERS = ["Thanks!", "Best regards", "Cheers", "Kind regards, and have a nice day", ""];
const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148",
  "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
];

Deno.test("scoring - 1,000 ordinary submissions stay completed (at most 0.5%)", async () => {
  const env = await testEnv({ RATE_LIMITS: '{"submit":100000}' });
  // The verdicts counted below are final (content included): the storing commit gives them.
  env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const key = await makeKey(env.deps, ws);
    const form = await makeForm(env.deps, ws, {
      name: "Contact sales",
      fields: [
        { name: "name", type: "text", required: true, maxLength: 100 },
        { name: "email", type: "email", required: true },
        { name: "phone", type: "tel" },
        { name: "company", type: "text" },
        { name: "website", type: "url" },
        { name: "topic", type: "select", options: ["sales", "support", "billing", "other"] },
        { name: "message", type: "textarea", required: true, maxLength: 5000 },
        { name: "newsletter", type: "boolean" },
      ],
      honeypot: "_gotcha",
    });
    const rand = rng(20261122);
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
    // ~650 distinct people; some write twice or three times.
    const ips = Array.from(
      { length: 650 },
      (_, i) =>
        i % 7 === 0
          ? `2001:db8:${(i * 37).toString(16)}:${i.toString(16)}::${(i * 13).toString(16)}`
          : `${11 + (i % 200)}.${(i * 7) % 256}.${(i * 13) % 256}.${1 + (i % 250)}`,
    );

    const bodyFor = (i: number) => {
      const first = pick(FIRST);
      const last = pick(LAST);
      const n = 1 + Math.floor(rand() * 500);
      const message = [pick(OPENERS), pick(BODIES).replaceAll("{n}", String(n)), pick(CLOSERS)]
        .filter(Boolean).join(rand() < 0.5 ? "\n\n" : " ");
      const data: Record<string, unknown> = {
        name: `${first} ${last}`,
        email: `${first.toLowerCase().replace(/[^a-z]/g, "")}.${i}@mail${i % 9}.example`,
        topic: pick(["sales", "support", "billing", "other"]),
        message,
        _gotcha: "",
      };
      if (rand() < 0.4) data.phone = `+49 30 ${1000000 + Math.floor(rand() * 8999999)}`;
      if (rand() < 0.3) {
        data.company = `${pick(LAST)} ${pick(["GmbH", "Ltd", "Inc.", "& Co", "AB"])}`;
      }
      if (rand() < 0.15) {
        data.website = `https://www.${pick(LAST).toLowerCase().replace(/[^a-z]/g, "")}${i}.example`;
      }
      if (rand() < 0.5) data.newsletter = rand() < 0.5;
      // Most browsers report when the form was rendered: 4 s to 20 min of typing.
      const body: Record<string, unknown> = { data };
      if (rand() < 0.85) {
        body.rendered_at = Date.now() - Math.floor(4_000 + rand() ** 2 * 1_200_000);
      }
      return body;
    };

    const ids: string[] = [];
    for (let start = 0; start < 1000; start += 25) {
      const chunk = await Promise.all(Array.from({ length: 25 }, async (_, j) => {
        const i = start + j;
        const viaKey = i % 10 === 3; // a backend relaying its own form
        const res = await postJson(
          env,
          `/api/v1/submit/p/${form.id}`,
          bodyFor(i),
          viaKey
            ? { authorization: `Bearer ${key}` }
            : { "user-agent": pick(AGENTS), origin: "https://www.example.com" },
          viaKey ? "10.0.0.5" : ips[Math.floor(rand() * ips.length)],
        );
        assert.equal(res.status, 201, await res.clone().text());
        return (await res.json()).submission_id as string;
      }));
      ids.push(...chunk);
    }
    const scored = await within(60_000, async () => {
      for (const id of ids) {
        if (!(await readSubmission(env.deps.kv, form.id, id))?.scored_at) return false;
      }
      return true;
    });
    assert.notEqual(scored, null, "every submission has its final verdict");
    const count = async (b: "completed" | "suspicious" | "spam" | "all") =>
      u64Value((await env.deps.kv.get(keys.submissionCount(form.id, "live", b))).value);
    const all = await count("all");
    const flagged = all - await count("completed");
    const reasons: string[] = [];
    for (const id of ids) {
      // The final verdict (records.ts joins the record with its verdict key).
      const sub = (await readSubmission(env.deps.kv, form.id, id))!;
      if (sub.status !== "completed") {
        assert.ok(sub.spam, "a flagged submission keeps its score and reasons");
        reasons.push(sub.spam!.reasons.join("+"));
      }
    }
    console.log(
      `1,000 ordinary submissions: ${flagged} not completed (${
        (flagged / all * 100).toFixed(2)
      }%)` +
        (reasons.length ? `; reasons: ${reasons.join(", ")}` : ""),
    );
    assert.equal(all, 1000);
    assert.ok(flagged <= 5, `${flagged} of 1000 flagged`);
    await assertCountersExact(env.deps.kv, form.id, "live");

    // The same scorer is not a no-op: 30 bot-like posts from three addresses are caught.
    const bots: string[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await postBotLike(env, form.id, i);
      bots.push((await res.json()).submission_id);
    }
    await within(30_000, async () => {
      for (const id of bots) {
        if (!(await readSubmission(env.deps.kv, form.id, id))?.scored_at) return false;
      }
      return true;
    });
    const caught = (await Promise.all(bots.map((id) => readSubmission(env.deps.kv, form.id, id))))
      .filter((s) => s!.status !== "completed").length;
    console.log(`bot-like posts flagged: ${caught} of 30`);
    assert.equal(caught, 30);
    await assertCountersExact(env.deps.kv, form.id, "live");
  } finally {
    await env.deps.jobs.stop();
    env.close();
  }
});
