/**
 * The content model: Robinson-Fisher token combining (as in SpamBayes) over per-token
 * document counts. Training counts in how many ham and spam messages each token occurs;
 * scoring turns each known token into a smoothed spam probability f(w), keeps the most
 * telling ones and combines them with Fisher's chi-square method into one probability.
 * Counts (not weights) are stored so later per-workspace counts can simply add to them.
 * @module
 */
import { tokenize } from "./tokens.ts";

/** Tuning of the token probabilities and their combination. */
export interface ModelParams {
  /** Robinson's s: how strongly the prior x holds against few observations. */
  strength: number;
  /** Robinson's x: the probability of a token never seen. */
  prior: number;
  /** Tokens whose f(w) is within this distance of 0.5 are ignored. */
  minDistance: number;
  /** At most this many tokens (the most telling) are combined. */
  maxTokens: number;
  /** Tokens seen in fewer training messages than this are pruned from the file. */
  minCount: number;
  /**
   * Texts with fewer telling tokens than this, and shorter than `fullEvidenceChars`,
   * have their probability pulled toward 0.5 in proportion (a short note says little).
   */
  fullEvidence: number;
  /** Texts at least this long (markup included) count as full evidence. */
  fullEvidenceChars: number;
  /**
   * How a short text is pulled toward 0.5: `linear` scales p - 0.5 by the evidence (the
   * default); `logit` scales the log-odds, so a few strong clues still tell.
   */
  pull?: "linear" | "logit";
}

/** Content probabilities at which the verdict adds 15 (leaning), 40 and 70 points. */
export interface ContentLevels {
  leaning: number;
  suspicious: number;
  spam: number;
}

/** The levels for texts of full length, and (when given) for short texts. */
export interface ContentThresholds extends ContentLevels {
  /** Levels for short free text (lib/protection/score.ts SHORT_TEXT_CHARS). */
  short?: ContentLevels;
}

/** The committed model file: a header and the token counts `[ham, spam]`. */
export interface ModelJson {
  version: 1;
  method: "robinson-fisher";
  corpus: string;
  folders: string[];
  split: string;
  params: ModelParams;
  /** Content thresholds chosen by the training script from stated costs (else defaults). */
  thresholds?: ContentThresholds;
  messages: { ham: number; spam: number };
  tokens: Record<string, [number, number]>;
}

/** A loaded model, ready to score. Immutable. */
export interface SpamModel {
  readonly params: ModelParams;
  /** Each kept token's spam probability f(w). */
  readonly f: ReadonlyMap<string, number>;
  /** Training counts `[ham, spam]` per token and the message totals (for blending, learn.ts). */
  readonly counts?: ReadonlyMap<string, readonly [number, number]>;
  readonly messages?: { readonly ham: number; readonly spam: number };
  /** The content thresholds the model was tuned with, when its file names them. */
  readonly thresholds?: ContentThresholds;
}

/** What the model says about one text. */
export interface ContentResult {
  /** Probability that the text is spam (0..1). */
  p: number;
  /** The few tokens that drove the verdict, strongest first; weight = log-odds of f(w). */
  tokens: Array<{ token: string; weight: number }>;
}

/** One labelled training text, already tokenized. */
export interface TrainingDoc {
  tokens: readonly string[];
  spam: boolean;
}

/** Robinson's smoothed spam probability of a token seen in `ham` and `spam` messages. */
export function tokenProbability(
  ham: number,
  spam: number,
  nHam: number,
  nSpam: number,
  params: ModelParams,
): number {
  const b = nSpam ? spam / nSpam : 0;
  const g = nHam ? ham / nHam : 0;
  if (b + g === 0) return params.prior;
  const p = b / (b + g);
  const n = ham + spam;
  return (params.strength * params.prior + n * p) / (params.strength + n);
}

/** Builds a scoring model from the file's contents. */
export function createSpamModel(json: ModelJson): SpamModel {
  const { ham: nHam, spam: nSpam } = json.messages;
  const f = new Map<string, number>();
  const counts = new Map<string, readonly [number, number]>();
  for (const [token, [ham, spam]] of Object.entries(json.tokens)) {
    counts.set(token, [ham, spam]);
    const p = tokenProbability(ham, spam, nHam, nSpam, json.params);
    if (Math.abs(p - 0.5) >= json.params.minDistance) f.set(token, p);
  }
  const model: SpamModel = { params: json.params, f, counts, messages: json.messages };
  return json.thresholds ? { ...model, thresholds: json.thresholds } : model;
}

/** How many driving tokens a result names. */
const TOP_TOKENS = 6;

/** Scores a text (and its subject) with the model. Pure. */
export function scoreText(
  model: SpamModel,
  input: { subject?: string; text: string },
): ContentResult {
  const text = input.subject ? `${input.subject}\n${input.text}` : input.text;
  return scoreTokens(model, tokenize(text), text.length);
}

/** Scores an already tokenized text of `chars` characters. */
export function scoreTokens(
  model: SpamModel,
  tokens: readonly string[],
  chars: number,
): ContentResult {
  let clues: Array<[string, number]> = [];
  for (const t of tokens) {
    const p = model.f.get(t);
    if (p !== undefined) clues.push([t, p]);
  }
  const distance = (c: [string, number]) => Math.abs(c[1] - 0.5);
  if (clues.length > model.params.maxTokens) {
    clues.sort((a, b) => distance(b) - distance(a) || (a[0] < b[0] ? -1 : 1));
    clues = clues.slice(0, model.params.maxTokens);
  }
  const raw = combine(clues.map((c) => c[1]));
  const { fullEvidence, fullEvidenceChars } = model.params;
  const evidence = Math.min(1, Math.max(clues.length / fullEvidence, chars / fullEvidenceChars));
  const p = evidence >= 1
    ? raw
    : model.params.pull === "logit"
    ? logistic(logit(raw) * evidence)
    : 0.5 + (raw - 0.5) * evidence;
  return { p, tokens: drivers(clues, p >= 0.5) };
}

/** Log-odds of a probability, clamped to ±ln(9999). */
function logit(p: number): number {
  const q = Math.min(Math.max(p, 1e-4), 1 - 1e-4);
  return Math.log(q / (1 - q));
}

function logistic(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** The strongest clues on the verdict's side, strongest first (ties by token). */
function drivers(clues: ReadonlyArray<[string, number]>, spammy: boolean): ContentResult["tokens"] {
  const top: Array<[string, number]> = [];
  const stronger = (a: [string, number], b: [string, number]) =>
    Math.abs(a[1] - 0.5) - Math.abs(b[1] - 0.5) || (a[0] < b[0] ? 1 : -1);
  for (const c of clues) {
    if ((c[1] > 0.5) !== spammy) continue;
    if (top.length === TOP_TOKENS && stronger(c, top[TOP_TOKENS - 1]) <= 0) continue;
    let i = Math.min(top.length, TOP_TOKENS - 1);
    top[i] = c;
    while (i > 0 && stronger(top[i], top[i - 1]) > 0) {
      [top[i], top[i - 1]] = [top[i - 1], top[i]];
      i--;
    }
  }
  return top.map(([token, f]) => ({
    token,
    weight: Math.round(Math.log(f / (1 - f)) * 100) / 100,
  }));
}

/** Fisher's method on both tails, as SpamBayes: 0.5 when there is no evidence. */
function combine(probs: readonly number[]): number {
  if (!probs.length) return 0.5;
  let lnHam = 0;
  let lnSpam = 0;
  for (const p of probs) {
    const q = Math.min(Math.max(p, 1e-6), 1 - 1e-6);
    lnSpam += Math.log(1 - q);
    lnHam += Math.log(q);
  }
  const s = 1 - chi2Q(-2 * lnSpam, 2 * probs.length);
  const h = 1 - chi2Q(-2 * lnHam, 2 * probs.length);
  return (s - h + 1) / 2;
}

/** Upper tail of the chi-square distribution with even degrees of freedom `v`. */
function chi2Q(x2: number, v: number): number {
  const m = x2 / 2;
  let term = Math.exp(-m);
  let sum = term;
  for (let i = 1; i < v / 2; i++) {
    term *= m / i;
    sum += term;
  }
  return Math.min(sum, 1);
}

/** Counts tokens per class over the documents and prunes rare tokens. Deterministic. */
export function trainCounts(
  docs: readonly TrainingDoc[],
  minCount: number,
): { messages: ModelJson["messages"]; tokens: ModelJson["tokens"] } {
  const counts = new Map<string, [number, number]>();
  let ham = 0;
  let spam = 0;
  for (const d of docs) {
    if (d.spam) spam++;
    else ham++;
    for (const t of new Set(d.tokens)) {
      const c = counts.get(t) ?? [0, 0];
      c[d.spam ? 1 : 0]++;
      counts.set(t, c);
    }
  }
  const tokens: ModelJson["tokens"] = {};
  for (const t of [...counts.keys()].sort()) {
    const c = counts.get(t)!;
    if (c[0] + c[1] >= minCount) tokens[t] = c;
  }
  return { messages: { ham, spam }, tokens };
}

/** Serialises a model: the header as indented JSON, then one token a line (stable diffs). */
export function serializeModel(json: ModelJson): string {
  const { tokens, ...header } = json;
  const head = JSON.stringify(header, null, 2).replace(/\n}$/, "");
  const lines = Object.keys(tokens).sort().map((t) =>
    `    ${JSON.stringify(t)}: [${tokens[t][0]}, ${tokens[t][1]}]`
  );
  return `${head},\n  "tokens": {\n${lines.join(",\n")}\n  }\n}\n`;
}
