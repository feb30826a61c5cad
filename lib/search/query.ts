/**
 * Answering a search from the index (lib/search/postings.ts): every submission of a form
 * and mode holding all the terms, newest first, with the exact total.
 *
 * Each term first reads its counters (one range of `wordCount` keys: the tokens starting
 * with it). The term matched by the fewest submissions drives: its postings are walked
 * newest first (one token: one reverse range of its groups; few postings: one range,
 * sorted; else a merge of its tokens' reverse ranges), keeping per submission only the
 * posting whose `shared` is below the term's length, so each submission comes once. The
 * other terms are checked on the candidates' records, and status and range on the
 * posting. Alone and unfiltered, a term's total is its
 * counters' sum and the walk stops at the page's end; otherwise the walk counts every
 * candidate of the driving term.
 * @module
 */
import { AppError } from "@/lib/errors.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { getManyChunked, u64Value, withKvRetry } from "@/lib/kv/kv.ts";
import type { Status, Submission } from "@/lib/schemas.ts";
import { holdsTerms } from "./entries.ts";
import { blockStart, unpackGroup } from "./postings.ts";

/** Counter keys one term reads at most: a term starting more tokens is too broad alone. */
export const VOCABULARY_LIMIT = 20_000;
/** A term with at most this many postings is read in one range and sorted in memory. */
const SORT_LIMIT = 20_000;
/** Most tokens merged walk by walk; a term with more is read in one range and sorted. */
const MERGE_LIMIT = 256;
/** Candidates checked together. */
const CHUNK = 200;
/** Above every character a token holds: the end of a prefix's range. */
const END = "\u{10FFFF}";

/** What to search: normalised terms (lib/search/terms.ts) and the list's filters. */
export interface SearchQuery {
  formId: string;
  mode: Mode;
  terms: string[];
  status?: Status;
  /** First UTC day number (days since 1970-01-01) inside the range; null for all. */
  fromDay: number | null;
  offset: number;
  limit: number;
}

/** The numbers of the page's submissions (newest first) and how many match in all. */
export interface SearchResult {
  numbers: number[];
  total: number;
}

/** A term's counters: its tokens and how many submissions it matches. */
interface Term {
  term: string;
  /** Tokens starting with the term that hold entries. */
  tokens: string[];
  /** Tokens holding entries counted for this term (`shared` below its length). */
  firsts: string[];
  /** Submissions holding the term. */
  total: number;
  /** Entries under the term's prefix (a submission may hold several). */
  entries: number;
  broad: boolean;
}

/** A candidate: a submission's number and its entry's value. */
interface Candidate {
  n: number;
  status: Status;
  day: number;
}

/** Runs a search; a query whose every term is too broad is a 400 `search_too_broad`. */
export async function searchIndex(kv: Deno.Kv, q: SearchQuery): Promise<SearchResult> {
  if (!q.terms.length) return { numbers: [], total: 0 };
  const terms = await Promise.all(q.terms.map((t) => readTerm(kv, q.formId, q.mode, t)));
  const narrow = terms.filter((t) => !t.broad).sort((a, b) => a.total - b.total);
  if (!narrow.length) {
    throw new AppError(
      400,
      "search_too_broad",
      `"${terms[0].term.replace(/^[@#]+/, "")}" starts too many different words: type more of it.`,
    );
  }
  const driver = narrow[0];
  if (driver.total === 0) return { numbers: [], total: 0 };
  const others = terms.filter((t) => t !== driver);
  const filtered = q.status !== undefined || q.fromDay !== null;
  const exactAlready = !others.length && !filtered;
  const want = q.offset + q.limit;
  const numbers: number[] = [];
  let matched = 0;
  let chunk: Candidate[] = [];
  const flush = async () => {
    const ok = await holdAll(kv, q, others, chunk.map((c) => c.n));
    for (const c of chunk) {
      if (!ok.has(c.n)) continue;
      if (matched >= q.offset && matched < want) numbers.push(c.n);
      matched++;
    }
    chunk = [];
  };
  // Entries read per trip: the page's worth when the walk stops at its end.
  const batch = exactAlready ? Math.min(500, want + 1) : 500;
  for await (const c of candidates(kv, q.formId, q.mode, driver, batch)) {
    if (q.status !== undefined && c.status !== q.status) continue;
    if (q.fromDay !== null && c.day < q.fromDay) continue;
    chunk.push(c);
    // Alone and unfiltered every candidate matches: the page's end is known.
    if (exactAlready && matched + chunk.length >= want) break;
    if (chunk.length >= CHUNK) await flush();
  }
  await flush();
  return { numbers, total: exactAlready ? driver.total : matched };
}

/** Reads a term's counters (up to VOCABULARY_LIMIT of them). */
async function readTerm(kv: Deno.Kv, formId: string, mode: Mode, term: string): Promise<Term> {
  const prefix = keys.wordCounts(formId, mode);
  return await withKvRetry(async () => {
    const tokens = new Set<string>();
    const firsts = new Set<string>();
    let total = 0;
    let entries = 0;
    let read = 0;
    const iter = kv.list<Deno.KvU64>(
      { start: [...prefix, term], end: [...prefix, term + END] },
      { batchSize: 1000 },
    );
    for await (const e of iter) {
      if (++read > VOCABULARY_LIMIT) {
        return { term, tokens: [], firsts: [], total: 0, entries: 0, broad: true };
      }
      const n = u64Value(e.value);
      if (n === 0) continue;
      const token = e.key[3] as string;
      tokens.add(token);
      entries += n;
      if ((e.key[4] as number) < term.length) {
        total += n;
        firsts.add(token);
      }
    }
    return { term, tokens: [...tokens], firsts: [...firsts], total, entries, broad: false };
  });
}

/** The driving term's submissions, newest first, each once. */
function candidates(
  kv: Deno.Kv,
  formId: string,
  mode: Mode,
  t: Term,
  batch: number,
): AsyncIterable<Candidate> {
  if (t.firsts.length === 1) {
    return tokenWalk(kv, formId, mode, t.firsts[0], t.term.length, batch);
  }
  if (t.entries <= SORT_LIMIT || t.firsts.length > MERGE_LIMIT) {
    return sortedWalk(kv, formId, mode, t.term);
  }
  return mergedWalk(
    t.firsts.map((token) =>
      tokenWalk(kv, formId, mode, token, t.term.length, Math.min(batch, 100))
    ),
  );
}

/** One token's submissions counted for a term of `length` characters, newest first. */
async function* tokenWalk(
  kv: Deno.Kv,
  formId: string,
  mode: Mode,
  token: string,
  length: number,
  batchSize: number,
): AsyncGenerator<Candidate> {
  const iter = kv.list({ prefix: [...keys.words(formId, mode), token] }, {
    reverse: true,
    batchSize,
  });
  // Groups never span blocks, but two commits' groups may interleave inside one: a block's
  // groups are read whole and sorted.
  let block = -1;
  let found: Candidate[] = [];
  for await (const e of iter) {
    const first = e.key[4] as number;
    if (blockStart(first) !== block) {
      yield* newestFirst(found);
      found = [];
      block = blockStart(first);
    }
    for (const p of unpackGroup(first, e.value)) {
      if (p.shared < length) found.push({ n: p.n, status: p.status, day: p.day });
    }
  }
  yield* newestFirst(found);
}

function newestFirst(found: Candidate[]): Candidate[] {
  return found.sort((a, b) => b.n - a.n);
}

/** A term's submissions read in one range, sorted newest first. */
async function* sortedWalk(
  kv: Deno.Kv,
  formId: string,
  mode: Mode,
  term: string,
): AsyncGenerator<Candidate> {
  const prefix = keys.words(formId, mode);
  const found: Candidate[] = [];
  const iter = kv.list({ start: [...prefix, term], end: [...prefix, term + END] }, {
    batchSize: 500,
  });
  for await (const e of iter) {
    for (const p of unpackGroup(e.key[4] as number, e.value)) {
      if (p.shared < term.length) found.push({ n: p.n, status: p.status, day: p.day });
    }
  }
  yield* newestFirst(found);
}

/** Merges walks that are each newest first (and disjoint) into one, newest first. */
async function* mergedWalk(walks: AsyncGenerator<Candidate>[]): AsyncGenerator<Candidate> {
  const heads = await Promise.all(walks.map((w) => w.next()));
  while (true) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i];
      if (!h.done && (best < 0 || h.value.n > (heads[best].value as Candidate).n)) best = i;
    }
    if (best < 0) return;
    yield heads[best].value as Candidate;
    heads[best] = await walks[best].next();
  }
}

/** Which of the numbers hold every one of `terms` (all of them when there are none). */
async function holdAll(
  kv: Deno.Kv,
  q: SearchQuery,
  terms: Term[],
  numbers: number[],
): Promise<Set<number>> {
  if (!terms.length) return new Set(numbers);
  if (terms.some((t) => !t.broad && !t.tokens.length)) return new Set();
  const records = await recordsOf(kv, q, numbers);
  const wanted = terms.map((t) => t.term);
  return new Set(records.filter((s) => holdsTerms(s, wanted)).map((s) => s.number));
}

/** The records of the submissions numbered `numbers` (through the number index). */
async function recordsOf(kv: Deno.Kv, q: SearchQuery, numbers: number[]): Promise<Submission[]> {
  const marks = await getManyChunked<{ id: string }>(
    kv,
    numbers.map((n) => keys.submissionByNumber(q.formId, q.mode, n)),
  );
  const ids = marks.map((m) => m.value?.id).filter((id): id is string => !!id);
  const records = await getManyChunked<Submission>(
    kv,
    ids.map((id) => keys.submission(q.formId, id)),
  );
  return records.map((r) => r.value).filter((s): s is Submission => s !== null);
}
