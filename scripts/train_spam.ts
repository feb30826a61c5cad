/**
 * `deno task train-spam`: installs the corpus on demand (data/corpus, git-ignored), reads
 * its two training folders, reports validation figures of the content model and of the
 * wink baseline on a fixed 80/20 split, the model size and the time to score a 4 KB
 * message, then trains on both folders whole and writes lib/spam/model.json.
 * Deterministic: `deno task train-spam && git diff --exit-code` checks the committed model.
 * @module
 */
import { CONTENT_SPAM_P, CONTENT_SUSPICIOUS_P, scoreSpam } from "@/lib/protection/score.ts";
import { ensureCorpus, foldOf, isValidation, readFolder } from "@/lib/spam/corpus.ts";
import { MODEL_URL } from "@/lib/spam/load.ts";
import {
  type ContentResult,
  createSpamModel,
  scoreText,
  serializeModel,
  type SpamModel,
} from "@/lib/spam/model.ts";
import { formText, type LabelledText, trainModel } from "@/lib/spam/train.ts";
import { trainWink } from "@/lib/spam/wink_baseline.ts";

/** Validation figures of a content scorer through the one verdict. */
interface Figures {
  ham: number;
  spam: number;
  /** Ham whose verdict is `spam`. */
  hamSpam: number;
  /** Ham whose verdict is `spam` or `suspicious`. */
  hamFlagged: number;
  /** Spam whose verdict is `spam` or `suspicious`. */
  spamCaught: number;
}

/** Scores each text as an ordinary contact-form submission (neutral behaviour). */
function evaluate(
  texts: readonly LabelledText[],
  content: (t: LabelledText) => ContentResult,
): Figures {
  const f: Figures = { ham: 0, spam: 0, hamSpam: 0, hamFlagged: 0, spamCaught: 0 };
  for (const t of texts) {
    const v = scoreSpam({
      signals: { ip: "192.0.2.1", user_agent: "Mozilla/5.0", fill_ms: 60_000 },
      fields: { subject: t.subject, message: t.text },
      urlFields: new Set(),
      recentFromIdentity: 0,
      duplicate: false,
      content: content(t),
    });
    if (t.spam) {
      f.spam++;
      if (v.status !== "completed") f.spamCaught++;
    } else {
      f.ham++;
      if (v.status === "spam") f.hamSpam++;
      if (v.status !== "completed") f.hamFlagged++;
    }
  }
  return f;
}

const pct = (n: number, of: number) => `${(100 * n / of).toFixed(2)}%`;

function row(name: string, f: Figures, bytes: number, us: number): string {
  return `| ${name} | ${pct(f.hamSpam, f.ham)} (${f.hamSpam}/${f.ham}) | ${
    pct(f.hamFlagged, f.ham)
  } (${f.hamFlagged}/${f.ham}) | ${pct(f.spamCaught, f.spam)} (${f.spamCaught}/${f.spam}) | ${
    (bytes / 1024).toFixed(0)
  } KiB | ${us.toFixed(1)} µs |`;
}

/**
 * µs per call of `fn`: the best of 7 rounds of `iterations` calls after a warm-up (the
 * host is shared, so the best round is the cost; the median is printed beside it).
 */
function timeUs(name: string, fn: () => unknown, iterations: number): number {
  for (let i = 0; i < Math.min(500, iterations); i++) fn();
  const rounds: number[] = [];
  for (let r = 0; r < 7; r++) {
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) fn();
    rounds.push((performance.now() - t0) * 1000 / iterations);
  }
  rounds.sort((a, b) => a - b);
  console.log(
    `${name}: 4 KB message scored in ${
      rounds[0].toFixed(1)
    } µs (best of 7 rounds of ${iterations}; median ${rounds[3].toFixed(1)} µs)`,
  );
  return rounds[0];
}

/** A 4 KB message: validation spam texts concatenated and cut at 4,096 characters. */
function fourKb(texts: readonly LabelledText[]): string {
  let s = "";
  for (const t of texts) {
    if (s.length >= 4096) break;
    if (t.spam) s += t.text + "\n";
  }
  return s.slice(0, 4096);
}

const dir = await ensureCorpus();
const texts: Array<LabelledText & { name: string }> = [
  ...await readFolder(dir, "ham"),
  ...await readFolder(dir, "spam"),
];
const train = texts.filter((t) => !isValidation(t.name));
const valid = texts.filter((t) => isValidation(t.name));
console.log(
  `corpus: ${texts.length} messages; validation ${valid.length} (${
    valid.filter((t) => !t.spam).length
  } ham), thresholds: suspicious p >= ${CONTENT_SUSPICIOUS_P}, spam p >= ${CONTENT_SPAM_P}`,
);
const sample = fourKb(valid);

const rfJson = trainModel(train);
const rf: SpamModel = createSpamModel(rfJson);
const rfFigures = evaluate(valid, (t) => scoreText(rf, { text: formText(t) }));
const rfUs = timeUs("robinson-fisher", () => scoreText(rf, { text: sample }), 2_000);
const rfBytes = new TextEncoder().encode(serializeModel(rfJson)).length;

const wink = trainWink(train.map((t) => ({ text: formText(t), spam: t.spam })));
const winkFigures = evaluate(valid, (t) => ({ p: wink.p(formText(t)), tokens: [] }));
const winkUs = timeUs("wink", () => wink.p(sample), 300);

console.log("| model | ham labelled spam | ham flagged | spam caught | model size | 4 KB score |");
console.log("|---|---|---|---|---|---|");
console.log(row("Robinson-Fisher (chosen)", rfFigures, rfBytes, rfUs));
console.log(row("wink naive Bayes", winkFigures, wink.bytes, winkUs));

// The chosen model on each of the five folds (trained on the other four), and in sum.
const sum: Figures = { ham: 0, spam: 0, hamSpam: 0, hamFlagged: 0, spamCaught: 0 };
for (let k = 0; k < 5; k++) {
  const m = createSpamModel(trainModel(texts.filter((t) => foldOf(t.name) !== k)));
  const f = evaluate(
    texts.filter((t) => foldOf(t.name) === k),
    (t) => scoreText(m, { text: formText(t) }),
  );
  for (const key of Object.keys(sum) as Array<keyof Figures>) sum[key] += f[key];
  console.log(row(`Robinson-Fisher, fold ${k}`, f, rfBytes, rfUs));
}
console.log(row("Robinson-Fisher, 5 folds", sum, rfBytes, rfUs));

// Both models' raw content probability against a sweep of thresholds (no behaviour).
const sweep = [0.5, 0.8, 0.9, 0.95, 0.99, 0.998, 0.9999];
for (
  const [name, p] of [
    ["robinson-fisher", (t: LabelledText) => scoreText(rf, { text: formText(t) }).p],
    ["wink", (t: LabelledText) => wink.p(formText(t))],
  ] as const
) {
  const ps = valid.map((t) => ({ spam: t.spam, p: p(t) }));
  const ham = ps.filter((x) => !x.spam);
  const spam = ps.filter((x) => x.spam);
  console.log(
    `${name} p >= t: ` +
      sweep.map((t) =>
        `${t}: ham ${pct(ham.filter((x) => x.p >= t).length, ham.length)}, spam ${
          pct(spam.filter((x) => x.p >= t).length, spam.length)
        }`
      ).join(" | "),
  );
}

const final = serializeModel(trainModel(texts));
await Deno.writeTextFile(MODEL_URL, final);
console.log(
  `wrote ${MODEL_URL.pathname} (${(final.length / 1024).toFixed(0)} KiB, ${
    Object.keys(JSON.parse(final).tokens).length
  } tokens, trained on all ${texts.length} messages)`,
);
