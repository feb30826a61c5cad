/**
 * A submission's search index entries, written in the commits that create, re-label and
 * delete it (submissions/indexes.ts), so the index never lags the submissions:
 *
 * - `word(form, mode, token, number)` per distinct token: its value packs the submission's
 *   UTC day, status and `shared` (characters the token shares with the submission's
 *   previous token), so status and range filter without reading records;
 * - `wordCount(form, mode, token, shared)` counters: a prefix's exact total sums the
 *   counters of its tokens whose `shared` is below the prefix's length.
 *
 * A new submission costs one set and one counter sum per token (counters shared by the
 * commit's submissions are summed once); a status change re-sets its entries; a delete
 * removes them and takes its counts back.
 * @module
 */
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { type Status, STATUSES, type Submission } from "@/lib/schemas.ts";
import { sharedWithPrevious, submissionTokens } from "./tokens.ts";

/** Sums counter deltas (submissions/indexes.ts CounterDeltas). */
export interface Counters {
  add(key: Deno.KvKey, n: number): void;
}

/** A submission's tokens, sorted, with what each shares with the one before. */
export interface SearchEntries {
  tokens: string[];
  shared: number[];
}

/** `shared` fits 7 bits (tokens are at most MAX_TOKEN_LENGTH long). */
const SHARED_BITS = 128;
const STATUS_CODES = STATUSES.length + 1;
const DAY_MS = 86_400_000;

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

/** An index entry's value: the day `created_at` falls on, the status and `shared`. */
export function entryValue(createdAt: string, status: Status, shared: number): number {
  const day = Math.floor(Date.parse(createdAt) / DAY_MS);
  return (day * STATUS_CODES + STATUSES.indexOf(status)) * SHARED_BITS + shared;
}

/** What an entry's value holds. */
export function readEntryValue(v: unknown): { day: number; status: Status; shared: number } {
  const n = typeof v === "number" ? v : 0;
  const shared = n % SHARED_BITS;
  const rest = Math.floor(n / SHARED_BITS);
  return {
    day: Math.floor(rest / STATUS_CODES),
    status: STATUSES[rest % STATUS_CODES] ?? "completed",
    shared,
  };
}

/** The UTC day number (days since 1970-01-01) of `YYYY-MM-DD`. */
export function dayNumber(day: string): number {
  return Math.floor(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
}

/** Writes a new submission's entries and counts them. */
export function addSearchEntries(op: Deno.AtomicOperation, c: Counters, s: Submission): void {
  const { tokens, shared } = searchEntriesOf(s);
  for (let i = 0; i < tokens.length; i++) {
    op.set(
      keys.word(s.form_id, s.mode, tokens[i], s.number),
      entryValue(s.created_at, s.status, shared[i]),
    );
    c.add(keys.wordCount(s.form_id, s.mode, tokens[i], shared[i]), 1);
  }
}

/** Re-sets a submission's entries with its new status (counts do not change). */
export function restatusSearchEntries(op: Deno.AtomicOperation, s: Submission, to: Status): void {
  const { tokens, shared } = searchEntriesOf(s);
  for (let i = 0; i < tokens.length; i++) {
    op.set(
      keys.word(s.form_id, s.mode, tokens[i], s.number),
      entryValue(s.created_at, to, shared[i]),
    );
  }
}

/** Removes a submission's entries and takes back its counts. */
export function removeSearchEntries(op: Deno.AtomicOperation, c: Counters, s: Submission): void {
  const { tokens, shared } = searchEntriesOf(s);
  for (let i = 0; i < tokens.length; i++) {
    op.delete(keys.word(s.form_id, s.mode, tokens[i], s.number));
    c.add(keys.wordCount(s.form_id, s.mode, tokens[i], shared[i]), -1);
  }
}

/**
 * Mutations and key bytes a submission's entries add to a commit whose counters so far are
 * `counted` (`token` NUL `shared`; a counter shared with an earlier submission of the commit
 * is one sum): an entry per token, and a counter per one not counted yet (`fresh`, for the
 * caller to add once the submission joins the commit). A delete's cost is the same.
 */
export function searchCost(
  s: Pick<Submission, "id" | "fields" | "form_id">,
  counted: ReadonlySet<string> = new Set(),
): { mutations: number; keyBytes: number; fresh: string[] } {
  const { tokens, shared } = searchEntriesOf(s);
  const fresh: string[] = [];
  let keyBytes = 0;
  // A key: prefix, form id, mode and number (about 32 bytes with their tags), and the token.
  for (let i = 0; i < tokens.length; i++) {
    const bytes = s.form_id.length + 32 + utf8Length(tokens[i]);
    keyBytes += bytes;
    const counter = `${tokens[i]}\0${shared[i]}`;
    if (counted.has(counter)) continue;
    fresh.push(counter);
    keyBytes += bytes;
  }
  return { mutations: tokens.length + fresh.length, keyBytes, fresh };
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
