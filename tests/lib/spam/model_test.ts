import assert from "node:assert/strict";
import { CONTENT_LEANING_P, CONTENT_SUSPICIOUS_P, scoreSpam } from "@/lib/protection/score.ts";
import { loadModel, loadModelJson, modelLoader } from "@/lib/spam/load.ts";
import { createSpamModel, scoreText, serializeModel } from "@/lib/spam/model.ts";
import { isDeepStrictEqual as deepEqual } from "node:util";
import { CANDIDATES, type LabelledText, modelHeader, trainModel } from "@/scripts/spam/train.ts";

/** A small fixed sample in the corpus' style (written here; the corpus is not in the repo). */
const SAMPLE: LabelledText[] = [
  { spam: false, subject: "Re: kernel build", text: "The patch applies cleanly to 2.4.19." },
  { spam: false, subject: "Re: exmh bug", text: "I can reproduce it with the CVS version." },
  { spam: false, subject: "lunch", text: "Shall we meet at noon? The usual place." },
  { spam: false, subject: "Re: perl", text: "Use a hash slice, see perldoc perldata." },
  { spam: true, subject: "FREE money!!!", text: "Click here http://win.test to claim $1000 now" },
  { spam: true, subject: "Lowest mortgage rates", text: "<p>Refinance TODAY, click here</p><br>" },
  { spam: true, subject: "Make money fast", text: "Earn $5000 a week from home, click here" },
];

const SPAM_TEXT = `Dear Friend,

CONGRATULATIONS! You have been selected to receive a FREE gift. This is a limited time
offer: act now and claim your prize. Make money fast from home, earn $5000 a week with
our proven system, no experience needed, 100% guaranteed! Order today and receive our
free report. Click here: http://win.example.biz/claim . Lowest mortgage rates, refinance
now and save thousands. To be removed from our mailing list, reply with REMOVE in the
subject line. This message is sent in compliance with the new e-mail bill.`;

const CONTACT_TEXT =
  "Hello, the CSV export of our survey stops after 500 rows. Is that a known limit " +
  "of the plan we are on, or did I miss a setting? Thanks, Ada";

Deno.test("spam model - training is deterministic", async (t) => {
  await t.step("the same sample in any order gives the same bytes", () => {
    const a = serializeModel(trainModel(SAMPLE));
    const b = serializeModel(trainModel([...SAMPLE].reverse()));
    assert.equal(a, b);
    assert.equal(a, serializeModel(trainModel(SAMPLE)));
    const json = JSON.parse(a);
    assert.deepEqual(json.messages, { ham: 4, spam: 3 });
    // "click" is in all three spam messages and no ham one; rare tokens (< 3) are pruned.
    assert.deepEqual(json.tokens.click, [0, 3]);
    assert.equal(json.tokens.perldoc, undefined);
  });

  await t.step("the committed model carries the header the script writes", async () => {
    const committed = await loadModelJson();
    const { messages, tokens, ...header } = committed;
    // The parameters and thresholds are the ones the script chose on grouped validation.
    assert.deepEqual(header, modelHeader(header.params, header.thresholds));
    assert.ok(CANDIDATES.some((c) => !c.rejected && deepEqual(c.params, header.params)));
    const t = header.thresholds!;
    assert.ok(0.5 <= t.leaning && t.leaning <= t.suspicious && t.suspicious < t.spam && t.spam < 1);
    assert.ok(messages.ham > 1000 && messages.spam > 1000, JSON.stringify(messages));
    assert.ok(Object.keys(tokens).length > 1000);
    // Written by serializeModel, so a retrain can reproduce it byte for byte.
    const text = await Deno.readTextFile(new URL("../../../lib/spam/model.json", import.meta.url));
    assert.equal(text, serializeModel(committed));
  });
});

Deno.test("spam model - the committed model reads content", async (t) => {
  const model = await loadModel();

  await t.step("a clear spam text scores high, a plain contact message low", () => {
    const spam = scoreText(model, { subject: "You have WON", text: SPAM_TEXT });
    assert.ok(spam.p >= CONTENT_SUSPICIOUS_P, `spam p ${spam.p}`);
    const ham = scoreText(model, { subject: "CSV export", text: CONTACT_TEXT });
    assert.ok(ham.p < CONTENT_LEANING_P, `contact p ${ham.p}`);
  });

  await t.step("the result names the tokens that drove it, strongest first", () => {
    const r = scoreText(model, { text: SPAM_TEXT });
    assert.ok(r.tokens.length > 0 && r.tokens.length <= 6);
    for (const x of r.tokens) assert.ok(x.weight > 0, "spam drivers push toward spam");
    const weights = r.tokens.map((x) => x.weight);
    assert.deepEqual(weights, [...weights].sort((a, b) => b - a));
    const words = SPAM_TEXT.toLowerCase();
    for (const x of r.tokens) {
      assert.ok(
        x.token.startsWith("meta:") || x.token.startsWith("url:") || words.includes(x.token),
      );
    }
  });

  await t.step("reasons carry the content figure and its tokens", () => {
    const content = scoreText(model, { text: SPAM_TEXT });
    const v = scoreSpam({
      signals: { user_agent: "Mozilla/5.0", fill_ms: 60_000 },
      fields: { message: SPAM_TEXT },
      urlFields: new Set(),
      recentFromIdentity: 0,
      duplicate: false,
      content,
    });
    assert.notEqual(v.status, "completed");
    assert.ok(v.reasons.some((r) => r.startsWith("content_")), String(v.reasons));
    assert.deepEqual(v.content, content);
  });

  await t.step("no evidence is an even 0.5, and an empty model knows nothing", () => {
    assert.equal(scoreText(model, { text: "" }).p, 0.5);
    const empty = createSpamModel({ ...modelHeader(), messages: { ham: 0, spam: 0 }, tokens: {} });
    assert.deepEqual(scoreText(empty, { text: SPAM_TEXT }), { p: 0.5, tokens: [] });
  });
});

Deno.test("spam model - a loader reads the file once and keeps the model", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const url = new URL(`file://${dir}/model.json`);
    const load = modelLoader(url);
    await assert.rejects(load(), Deno.errors.NotFound);
    await Deno.writeTextFile(url, serializeModel(trainModel(SAMPLE)));
    const first = await load();
    await Deno.remove(url);
    assert.equal(await load(), first, "kept, not read again");
    assert.ok(first.f.has("click"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
