/**
 * A search query as index terms. The query is normalised like the values (lib/search/
 * tokens.ts) and split at spaces; a piece holding `@` is an address term (`ada@exa` matches
 * addresses starting so; `@example.com` an address's domain), a piece starting `sub_` is a
 * submission id term, any other piece gives its words. Every term must match the start of
 * one of a submission's tokens.
 * @module
 */
import { MAX_TOKEN_LENGTH, normalizeText, wordsOf } from "./tokens.ts";

/** Longest query, in characters. */
export const MAX_QUERY_LENGTH = 200;
/** Most words (terms) one query holds. */
export const MAX_QUERY_WORDS = 8;

/** Punctuation around a piece (`<ada@example.com>,`) that is not part of it. */
const EDGES = /^[^\p{L}\p{N}@#_]+|[^\p{L}\p{N}@]+$/gu;

/** The raw terms of a query, before dropping the ones other terms imply. */
function rawTerms(query: string): string[] {
  const out: string[] = [];
  for (const piece of normalizeText(query).split(/\s+/)) {
    const p = piece.replace(EDGES, "");
    if (!p) continue;
    if (p.includes("@")) {
      const domain = p.startsWith("@");
      const rest = p.replace(/^@+/, "");
      if (rest) out.push(domain ? `@@${rest}` : `@${rest}`);
    } else if (/^#?sub_/.test(p)) {
      out.push(`#${p.replace(/^#/, "")}`);
    } else out.push(...wordsOf(p, true));
  }
  return out;
}

/**
 * The query's terms: distinct, and without a term another one implies (`ada` when `adam`
 * is there too: whatever starts with `adam` starts with `ada`).
 */
export function searchTerms(query: string): string[] {
  const terms = [...new Set(rawTerms(query))];
  return terms.filter((t) => !terms.some((o) => o !== t && o.startsWith(t)));
}

/** Why a query cannot be run (too many words, a word too long), or null. */
export function searchProblem(query: string): string | null {
  if (query.length > MAX_QUERY_LENGTH) {
    return `Search at most ${MAX_QUERY_LENGTH} characters.`;
  }
  const terms = rawTerms(query);
  if (new Set(terms).size > MAX_QUERY_WORDS) {
    return `Search at most ${MAX_QUERY_WORDS} words.`;
  }
  if (terms.some((t) => t.replace(/^[@#]+/, "").length > MAX_TOKEN_LENGTH)) {
    return `Each searched word is at most ${MAX_TOKEN_LENGTH} characters.`;
  }
  return null;
}
