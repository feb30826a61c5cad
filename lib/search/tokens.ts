/**
 * What a submission is found by: its search tokens. Text is normalised (Unicode NFKC, lower
 * case, accents stripped) and cut into words (runs of letters and digits); an email address
 * also gives two whole tokens (the address, and its domain), and the submission id one.
 * Tokens of different kinds never share a first character, so a word's prefix never
 * reaches an address or an id: words start with a letter or digit, addresses with `@`
 * (`@ada@example.com`, and `@@example.com` for the domain), ids with `#`.
 * @module
 */

/**
 * Longest token kept (its `@`/`#` marker aside); a longer word is indexed by its first
 * this-many characters.
 */
export const MAX_TOKEN_LENGTH = 64;
/** Different tokens indexed per submission at most (the id and addresses first). */
export const MAX_TOKENS = 250;

const MARKS = /\p{M}+/gu;
const WORD = /[\p{L}\p{N}]+/gu;
/** The same for ASCII text (lower case already), several times faster. */
const ASCII_WORD = /[a-z0-9]+/g;
// deno-lint-ignore no-control-regex
const ASCII = /^[\x00-\x7f]*$/;
/** An address inside any text value (what an email field holds, or one in a message). */
const EMAIL = /[\p{L}\p{N}._%+\-']+@[\p{L}\p{N}\-]+(?:\.[\p{L}\p{N}\-]+)+/gu;

/** Lower case, NFKC, accents stripped: how both values and queries are compared. */
export function normalizeText(text: string): string {
  // ASCII is its own NFKC form and has no marks: the common case skips the normalisations.
  if (ASCII.test(text)) return text.toLowerCase();
  const folded = text.normalize("NFKC").toLowerCase();
  return folded.normalize("NFD").replace(MARKS, "").normalize("NFC");
}

/** The words of normalised text, each cut to MAX_TOKEN_LENGTH unless `whole`. */
export function wordsOf(normalized: string, whole = false): string[] {
  const words = normalized.match(ASCII.test(normalized) ? ASCII_WORD : WORD) ?? [];
  return whole ? words : words.map(cut);
}

/** The whole-address tokens of normalised text: `@` + address, and `@@` + domain. */
export function emailTokensOf(normalized: string): string[] {
  const out: string[] = [];
  if (!normalized.includes("@")) return out;
  for (const m of normalized.matchAll(EMAIL)) {
    const address = m[0].replace(/^[.'\-]+|[.'\-]+$/g, "");
    const at = address.indexOf("@");
    if (at <= 0) continue;
    out.push(`@${cut(address)}`, `@@${cut(address.slice(at + 1))}`);
  }
  return out;
}

/** The token of a submission id (`#sub_…`). */
export function idToken(id: string): string {
  return `#${cut(id.toLowerCase())}`;
}

function cut(token: string): string {
  if (token.length <= MAX_TOKEN_LENGTH) return token;
  // Never half a surrogate pair: KV would store a replacement character instead.
  const end = /[\ud800-\udbff]/.test(token[MAX_TOKEN_LENGTH - 1])
    ? MAX_TOKEN_LENGTH - 1
    : MAX_TOKEN_LENGTH;
  return token.slice(0, end);
}

/** Every string, number and boolean inside a submission's field values, in field order. */
function scalarsOf(fields: Record<string, unknown>): string[] {
  const out: string[] = [];
  const visit = (v: unknown): void => {
    if (typeof v === "string") out.push(v);
    else if (typeof v === "number" || typeof v === "boolean") out.push(String(v));
    else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object") Object.values(v).forEach(visit);
  };
  Object.values(fields).forEach(visit);
  return out;
}

/**
 * The distinct tokens of a submission (its id, its addresses, then the words of its field
 * values in field order; at most MAX_TOKENS), sorted. Deterministic: the delete of a
 * submission removes exactly what its create wrote.
 */
export function submissionTokens(id: string, fields: Record<string, unknown>): string[] {
  const texts = scalarsOf(fields).map(normalizeText);
  const seen = new Set<string>([idToken(id)]);
  for (const t of texts) for (const e of emailTokensOf(t)) seen.add(e);
  outer: for (const t of texts) {
    for (const w of wordsOf(t)) {
      if (seen.size >= MAX_TOKENS) break outer;
      seen.add(w);
    }
  }
  // Addresses may already have filled the set past the bound: keep it.
  return [...seen].slice(0, MAX_TOKENS).sort();
}

/**
 * For each token of a sorted token list, how many leading characters it shares with the
 * one before it (0 for the first). A query prefix `p` matches a run of neighbours; exactly
 * one of them (the run's first) shares fewer than `p.length` with its predecessor, so
 * counting only those counts each submission once.
 */
export function sharedWithPrevious(sorted: string[]): number[] {
  return sorted.map((t, i) => (i === 0 ? 0 : commonPrefix(sorted[i - 1], t)));
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
