/**
 * What a submission is indexed under (its tokens, sorted, with `shared`: the characters
 * each shares with the one before), and what indexing it costs a commit. The entries
 * themselves are groups of postings (lib/search/postings.ts), written in the commits that
 * create, re-label and delete submissions (submissions/indexes.ts):
 *
 * - `word(form, mode, token, first)`: a commit's submissions holding the token;
 * - `wordCount(form, mode, token, shared)` counters: a prefix's exact total sums the
 *   counters of its tokens whose `shared` is below the prefix's length.
 * @module
 */
import { keys, type Mode } from "@/lib/kv/keys.ts";
import type { Submission } from "@/lib/schemas.ts";
import { sharedWithPrevious, submissionTokens } from "./tokens.ts";

/** A submission's tokens, sorted, with what each shares with the one before. */
export interface SearchEntries {
  tokens: string[];
  shared: number[];
}

/** Numbers per block: a group of postings (lib/search/postings.ts) lists one block's. */
export const GROUP_BLOCK = 1024;

/** Entries already worked out, by the fields object they came from (a commit asks twice). */
const memo = new WeakMap<object, { id: string; entries: SearchEntries }>();

/** The tokens a stored submission is indexed under. */
export function searchEntriesOf(s: Pick<Submission, "id" | "fields">): SearchEntries {
  const known = memo.get(s.fields);
  if (known?.id === s.id) return known.entries;
  const tokens = submissionTokens(s.id, s.fields);
  const entries = { tokens, shared: sharedWithPrevious(tokens) };
  memo.set(s.fields, { id: s.id, entries });
  return entries;
}

/**
 * Mutations and key bytes a submission's postings add to a commit whose search keys so far
 * are `counted`: a group per token and block not written yet, and a counter per
 * `(token, shared)` not counted yet (`fresh`, for the caller to add once the submission
 * joins the commit). A delete or status change rewrites at most as many groups.
 */
export function searchCost(
  s: Pick<Submission, "id" | "fields" | "form_id"> & { number?: number },
  counted: ReadonlySet<string> = new Set(),
): { mutations: number; keyBytes: number; fresh: string[] } {
  const { tokens, shared } = searchEntriesOf(s);
  // Without its number, the commit may cross a block's end: a token may take two groups.
  const perGroup = s.number === undefined ? 2 : 1;
  const block = Math.floor((s.number ?? 0) / GROUP_BLOCK);
  const fresh: string[] = [];
  let mutations = 0;
  let keyBytes = 0;
  // A key: prefix, form id, mode and number (about 32 bytes with their tags), and the token.
  for (let i = 0; i < tokens.length; i++) {
    const bytes = s.form_id.length + 32 + utf8Length(tokens[i]);
    const group = `g${tokens[i]}\0${block}`;
    if (!counted.has(group)) {
      fresh.push(group);
      mutations += perGroup;
      keyBytes += bytes * perGroup;
    }
    const counter = `c${tokens[i]}\0${shared[i]}`;
    if (!counted.has(counter)) {
      fresh.push(counter);
      mutations++;
      keyBytes += bytes;
    }
  }
  return { mutations, keyBytes, fresh };
}

function utf8Length(t: string): number {
  // deno-lint-ignore no-control-regex
  return /^[\x00-\x7f]*$/.test(t) ? t.length : encoder.encode(t).length;
}
const encoder = new TextEncoder();

/** Prefix of a form and mode's search index, for sweeps. */
export function searchPrefixes(formId: string, mode: Mode): Deno.KvKey[] {
  return [keys.words(formId, mode), keys.wordCounts(formId, mode)];
}

/**
 * Whether a submission holds every term (lib/search/terms.ts): the index's matching rule
 * applied to a record. No terms match nothing.
 */
export function holdsTerms(s: Pick<Submission, "id" | "fields">, terms: string[]): boolean {
  if (!terms.length) return false;
  const { tokens } = searchEntriesOf(s);
  return terms.every((t) => tokens.some((tok) => tok.startsWith(t)));
}
