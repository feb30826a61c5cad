/**
 * Rebuilding a form's search index from its records (`deno task cli search rebuild`), while
 * the service keeps writing. Three passes:
 *
 * 1. every record is read and its postings noted (no writes);
 * 2. per token, each block whose groups (lib/search/postings.ts) disagree with the noted
 *    postings is rewritten as one group, in a commit that checks the form's edit stamp
 *    (read before the groups; every delete and status change sets it) and decides each
 *    disputed submission on its record read then (a submission stored meanwhile keeps its
 *    posting, one deleted meanwhile loses it);
 * 3. per token, the counters are set to what its groups say, checking the counters read
 *    before the groups (any submit or delete holding the token moves one of them).
 *
 * Writes only what differs.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { commitWithRetry, getManyChunked, u64Value, withKvRetry } from "@/lib/kv/kv.ts";
import type { Submission } from "@/lib/schemas.ts";
import { GROUP_BLOCK, searchEntriesOf } from "./entries.ts";
import { blockStart, dayOfTimestamp, packGroup, type Posting, unpackGroup } from "./postings.ts";

/** What a rebuild did. */
export interface RebuildReport {
  submissions: number;
  /** Postings added or corrected (pass 2). */
  entries_set: number;
  /** Postings removed: no stored submission holds them (pass 2). */
  entries_removed: number;
  /** Tokens whose counters were corrected (pass 3). */
  counters_fixed: number;
}

/** Blocks one pass-2 commit rewrites at most. */
const BLOCKS_PER_COMMIT = 100;
/** Records read together. */
const READ = 200;

/** Rebuilds the search index of `formId` in `mode`. */
export async function rebuildSearchIndex(
  deps: Pick<Deps, "kv">,
  formId: string,
  mode: Mode,
): Promise<RebuildReport> {
  const kv = deps.kv;
  const report: RebuildReport = {
    submissions: 0,
    entries_set: 0,
    entries_removed: 0,
    counters_fixed: 0,
  };
  const held = await notePostings(kv, formId, mode, report);
  const tokens = new Set(held.keys());
  for await (const t of tokensOf(kv, formId, mode)) tokens.add(t);
  for (const token of [...tokens].sort()) {
    await repairGroups(kv, formId, mode, token, held.get(token) ?? new Map(), report);
    if (await recount(kv, formId, mode, token)) report.counters_fixed++;
  }
  return report;
}

/** A stored submission's posting under `token`, or null when it does not hold it. */
function postingOf(s: Submission | null, mode: Mode, token: string): Posting | null {
  if (!s || s.mode !== mode) return null;
  const { tokens, shared } = searchEntriesOf(s);
  const i = tokens.indexOf(token);
  if (i < 0) return null;
  return { n: s.number, day: dayOfTimestamp(s.created_at), status: s.status, shared: shared[i] };
}

/** Pass 1: every record's postings, by token and number. */
async function notePostings(
  kv: Deno.Kv,
  formId: string,
  mode: Mode,
  report: RebuildReport,
): Promise<Map<string, Map<number, Posting>>> {
  const held = new Map<string, Map<number, Posting>>();
  let ids: string[] = [];
  const flush = async () => {
    const records = await getManyChunked<Submission>(
      kv,
      ids.map((id) => keys.submission(formId, id)),
    );
    for (const r of records) {
      const s = r.value;
      if (!s || s.mode !== mode) continue;
      report.submissions++;
      const { tokens } = searchEntriesOf(s);
      for (const t of tokens) {
        const p = postingOf(s, mode, t)!;
        const m = held.get(t) ?? new Map<number, Posting>();
        m.set(p.n, p);
        held.set(t, m);
      }
    }
    ids = [];
  };
  const iter = kv.list<{ id: string }>({ prefix: keys.submissionsByNumber(formId, mode) }, {
    batchSize: 500,
  });
  for await (const e of iter) {
    ids.push(e.value.id);
    if (ids.length >= READ) await flush();
  }
  await flush();
  return held;
}

/** Every token of the form's groups and counters, each once, in order. */
async function* tokensOf(kv: Deno.Kv, formId: string, mode: Mode): AsyncGenerator<string> {
  const seen = new Set<string>();
  for (const prefix of [keys.words(formId, mode), keys.wordCounts(formId, mode)]) {
    let start: Deno.KvKey = [...prefix, ""];
    const end: Deno.KvKey = [...prefix, "\u{10FFFF}"];
    for (;;) {
      const [next] = await withKvRetry(async () => {
        const out: Deno.KvEntry<unknown>[] = [];
        for await (const e of kv.list({ start, end }, { limit: 1 })) out.push(e);
        return out;
      });
      if (!next) break;
      const token = next.key[3] as string;
      if (!seen.has(token)) {
        seen.add(token);
        yield token;
      }
      // Past every key of this token (they all continue after it with a number).
      start = [...prefix, `${token}\0`];
    }
  }
}

/** A token's groups, by block. */
async function groupsOf(
  kv: Deno.Kv,
  formId: string,
  mode: Mode,
  token: string,
  blocks?: number[],
): Promise<Map<number, Deno.KvEntry<unknown>[]>> {
  const prefix = [...keys.words(formId, mode), token];
  const out = new Map<number, Deno.KvEntry<unknown>[]>();
  const add = (e: Deno.KvEntry<unknown>) => {
    const b = blockStart(e.key[4] as number);
    out.set(b, [...out.get(b) ?? [], e]);
  };
  await withKvRetry(async () => {
    out.clear();
    if (!blocks) {
      for await (const e of kv.list({ prefix })) add(e);
      return;
    }
    await Promise.all(blocks.map(async (b) => {
      const iter = kv.list({ start: [...prefix, b], end: [...prefix, b + GROUP_BLOCK] });
      for await (const e of iter) add(e);
    }));
  });
  return out;
}

function postingsIn(groups: Deno.KvEntry<unknown>[]): Posting[] {
  return groups.flatMap((g) => unpackGroup(g.key[4] as number, g.value)).sort((a, b) => a.n - b.n);
}

function same(a: Posting[], b: Posting[]): boolean {
  return a.length === b.length &&
    a.every((p, i) =>
      p.n === b[i].n && p.day === b[i].day && p.status === b[i].status && p.shared === b[i].shared
    );
}

/** Pass 2: rewrites the blocks of a token whose groups disagree with the records. */
async function repairGroups(
  kv: Deno.Kv,
  formId: string,
  mode: Mode,
  token: string,
  held: Map<number, Posting>,
  report: RebuildReport,
): Promise<void> {
  const noted = new Map<number, Posting[]>();
  for (const p of held.values()) {
    const b = blockStart(p.n);
    noted.set(b, [...noted.get(b) ?? [], p]);
  }
  const stored = await groupsOf(kv, formId, mode, token);
  const wrong = [...new Set([...noted.keys(), ...stored.keys()])].filter((b) =>
    !same(postingsIn(stored.get(b) ?? []), (noted.get(b) ?? []).sort((x, y) => x.n - y.n))
  );
  for (let i = 0; i < wrong.length; i += BLOCKS_PER_COMMIT) {
    const chunk = wrong.slice(i, i + BLOCKS_PER_COMMIT);
    const done = await commitWithRetry(kv, async (op) => {
      const stamp = await withKvRetry(() => kv.get(keys.submissionEdits(formId, mode)));
      op.check(stamp);
      const groups = await groupsOf(kv, formId, mode, token, chunk);
      // Every number either side names, decided on its record as stored now (a submission
      // stored after this read has a group of its own, which this commit leaves alone).
      const numbers = new Set<number>();
      for (const b of chunk) {
        for (const p of postingsIn(groups.get(b) ?? [])) numbers.add(p.n);
        for (const p of noted.get(b) ?? []) numbers.add(p.n);
      }
      const list = [...numbers];
      const marks = await getManyChunked<{ id: string }>(
        kv,
        list.map((n) => keys.submissionByNumber(formId, mode, n)),
      );
      const records = await getManyChunked<Submission>(
        kv,
        marks.map((m) => keys.submission(formId, m.value?.id ?? "-")),
      );
      const truth = new Map<number, Posting>();
      list.forEach((n, j) => {
        const p = marks[j].value ? postingOf(records[j].value, mode, token) : null;
        if (p && p.n === n) truth.set(n, p);
      });
      let set = 0;
      let removed = 0;
      let changed = false;
      for (const b of chunk) {
        const have = postingsIn(groups.get(b) ?? []);
        const want = [...truth.values()].filter((p) => blockStart(p.n) === b)
          .sort((x, y) => x.n - y.n);
        if (same(have, want)) continue;
        changed = true;
        const haveBy = new Map(have.map((p) => [p.n, p]));
        for (const p of want) {
          const h = haveBy.get(p.n);
          if (!h || !same([h], [p])) set++;
        }
        removed += have.filter((p) => !truth.has(p.n)).length;
        const newKey = want.length ? keys.word(formId, mode, token, want[0].n) : null;
        for (const g of groups.get(b) ?? []) {
          if (!newKey || g.key[4] !== newKey[4]) op.delete(g.key);
        }
        if (newKey) op.set(newKey, packGroup(want[0].n, want));
      }
      if (!changed) return null;
      op.set(keys.submissionEdits(formId, mode), true);
      return { set, removed };
    });
    report.entries_set += done?.set ?? 0;
    report.entries_removed += done?.removed ?? 0;
  }
}

/** Pass 3: sets a token's counters to its groups' counts; whether any was wrong. */
async function recount(kv: Deno.Kv, formId: string, mode: Mode, token: string): Promise<boolean> {
  const fixed = await commitWithRetry(kv, async (op) => {
    // Counters first: a change to the groups after this read moves one of them.
    const counters = new Map<number, Deno.KvEntry<Deno.KvU64>>();
    for await (
      const e of kv.list<Deno.KvU64>({ prefix: [...keys.wordCounts(formId, mode), token] })
    ) counters.set(e.key[4] as number, e);
    const counts = new Map<number, number>();
    for (const groups of (await groupsOf(kv, formId, mode, token)).values()) {
      for (const p of postingsIn(groups)) counts.set(p.shared, (counts.get(p.shared) ?? 0) + 1);
    }
    let wrong = false;
    for (const shared of new Set([...counters.keys(), ...counts.keys()])) {
      const have = counters.get(shared);
      const want = counts.get(shared) ?? 0;
      if ((have ? u64Value(have.value) : 0) === want) continue;
      wrong = true;
      const key = keys.wordCount(formId, mode, token, shared);
      op.check(have ?? { key, versionstamp: null });
      if (want) op.set(key, new Deno.KvU64(BigInt(want)));
      else op.delete(key);
    }
    return wrong || null;
  });
  return !!fixed;
}
