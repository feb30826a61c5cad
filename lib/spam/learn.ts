/**
 * Learning from admins: a workspace's own token statistics (counts `[ham, spam]` per token
 * from the messages its admins labelled) and the blend with the global model. Pure.
 * Rule (docs/decisions/spam-learning-from-labels.md): below `BLEND_FROM` labels the global model is
 * used unchanged; from then on each workspace label counts as `BLEND_WEIGHT` corpus
 * messages: its token counts and message totals are added, weighted, to the global ones.
 * @module
 */
import type { Status } from "@/lib/schemas.ts";
import { type SpamModel, tokenProbability } from "./model.ts";

/** A workspace's labelled messages and token counts `[ham, spam]`. */
export interface SpamStats {
  ham: number;
  spam: number;
  tokens: Record<string, [number, number]>;
}

/** A label: spam, or not spam (ham). */
export type Label = "spam" | "ham";

/** The label an admin-set status teaches (`suspicious` teaches nothing). */
export function labelOfStatus(status: Status): Label | null {
  return status === "spam" ? "spam" : status === "completed" ? "ham" : null;
}

/** What one submission's label taught (kept so un-doing it subtracts exactly this). */
export interface Learned {
  label: Label;
  tokens: string[];
}

/** Labels a workspace needs before its statistics count. */
export const BLEND_FROM = 10;
/** One workspace label weighs as this many corpus messages. */
export const BLEND_WEIGHT = 5;
/** At most this many tokens of one message are learned (first ones in the text). */
export const MAX_TOKENS_PER_MESSAGE = 200;
/** Longer tokens are not learned (they would only bloat the record). */
export const MAX_TOKEN_LENGTH = 40;
/** A workspace keeps at most this many tokens (the record stays well under KV's 64 KiB). */
export const MAX_STATS_TOKENS = 2000;

/** Empty statistics. */
export function emptyStats(): SpamStats {
  return { ham: 0, spam: 0, tokens: tokenTable() };
}

/**
 * A token table without a prototype: tokens come from visitors' text, so `constructor`,
 * `toString` or `__proto__` must read as unseen words, not as `Object.prototype`'s members.
 */
function tokenTable(from?: SpamStats["tokens"]): SpamStats["tokens"] {
  return Object.assign(Object.create(null), from);
}

/** The tokens of a message a label learns (bounded). */
export function learnableTokens(tokens: readonly string[]): string[] {
  return tokens.filter((t) => t.length <= MAX_TOKEN_LENGTH).slice(0, MAX_TOKENS_PER_MESSAGE);
}

/**
 * Adds (`sign` 1) or subtracts (`sign` -1) one labelled message. Counts never go below 0
 * (a token pruned meanwhile is simply gone); zero rows are dropped; above
 * `MAX_STATS_TOKENS` the least seen tokens are pruned. Returns new statistics.
 */
export function applyLabel(
  stats: SpamStats,
  learned: Learned,
  sign: 1 | -1,
): SpamStats {
  const i = learned.label === "spam" ? 1 : 0;
  const tokens = tokenTable(stats.tokens);
  for (const t of learned.tokens) {
    const row: [number, number] = [...(tokens[t] ?? [0, 0])];
    row[i] = Math.max(0, row[i] + sign);
    if (row[0] + row[1] === 0) delete tokens[t];
    else tokens[t] = row;
  }
  const next: SpamStats = { ham: stats.ham, spam: stats.spam, tokens };
  next[learned.label] = Math.max(0, next[learned.label] + sign);
  return prune(next);
}

function prune(stats: SpamStats): SpamStats {
  const names = Object.keys(stats.tokens);
  if (names.length <= MAX_STATS_TOKENS) return stats;
  const total = (t: string) => stats.tokens[t][0] + stats.tokens[t][1];
  names.sort((a, b) => total(b) - total(a) || (a < b ? -1 : 1));
  const tokens = tokenTable();
  for (const t of names.slice(0, MAX_STATS_TOKENS)) tokens[t] = stats.tokens[t];
  return { ...stats, tokens };
}

/**
 * The model a workspace's verdicts use: the global one until the workspace has
 * `BLEND_FROM` labels, then the global counts plus `BLEND_WEIGHT` × the workspace's for
 * every token the workspace has seen (other tokens keep their global probability).
 */
export function blendModel(global: SpamModel, stats: SpamStats | null): SpamModel {
  if (!stats || stats.ham + stats.spam < BLEND_FROM || !global.counts || !global.messages) {
    return global;
  }
  const w = BLEND_WEIGHT;
  const nHam = global.messages.ham + w * stats.ham;
  const nSpam = global.messages.spam + w * stats.spam;
  const f = new Map(global.f);
  for (const [t, [ham, spam]] of Object.entries(stats.tokens)) {
    const [gHam, gSpam] = global.counts.get(t) ?? [0, 0];
    const p = tokenProbability(gHam + w * ham, gSpam + w * spam, nHam, nSpam, global.params);
    if (Math.abs(p - 0.5) >= global.params.minDistance) f.set(t, p);
    else f.delete(t);
  }
  return { ...global, f };
}
