/**
 * Rebuilding a form's search index from its records (`deno task cli search rebuild`), while
 * the service keeps writing. Three passes, each commit checked so a concurrent submit,
 * status change or delete is never undone nor counted twice:
 *
 * 1. every record's entries are set again (checking the record and its verdict);
 * 2. per token, entries no record holds are removed (checking the number index: a
 *    submission stored meanwhile keeps its entries);
 * 3. per token, the counters are set to what its entries say, checking the counters read
 *    before the entries (any submit or delete holding the token moves one of them).
 *
 * Writes only what differs in passes 2 and 3; pass 1 rewrites every entry.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { maxChecks } from "@/lib/kv/batcher.ts";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { commitWithRetry, getManyChunked, u64Value, withKvRetry } from "@/lib/kv/kv.ts";
import type { Submission } from "@/lib/schemas.ts";
import { readEntries } from "@/lib/submissions/records.ts";
import { entryValue, readEntryValue, searchEntriesOf } from "./entries.ts";

/** What a rebuild did. */
export interface RebuildReport {
  submissions: number;
  /** Entries set again (pass 1) and removed (pass 2). */
  entries_set: number;
  entries_removed: number;
  /** Tokens whose counters were corrected (pass 3). */
  counters_fixed: number;
}

/** Records read together in pass 1. */
const READ = 50;
/** Entries (mutations) one commit writes at most. */
const PER_COMMIT = 400;

/** Rebuilds the search index of `formId` in `mode`. */
export async function rebuildSearchIndex(
  deps: Pick<Deps, "kv">,
  formId: string,
  mode: Mode,
): Promise<RebuildReport> {
  const report: RebuildReport = {
    submissions: 0,
    entries_set: 0,
    entries_removed: 0,
    counters_fixed: 0,
  };
  const held = await setEntries(deps.kv, formId, mode, report);
  for await (const token of tokensOf(deps.kv, formId, mode)) {
    report.entries_removed += await removeStrays(deps.kv, formId, mode, token, held);
    if (await recount(deps.kv, formId, mode, token)) report.counters_fixed++;
  }
  return report;
}

/** Pass 1: sets every record's entries; returns `token NUL number` of each. */
async function setEntries(
  kv: Deno.Kv,
  formId: string,
  mode: Mode,
  report: RebuildReport,
): Promise<Set<string>> {
  const held = new Set<string>();
  const perCommit = Math.max(1, Math.floor(maxChecks(kv) / 2));
  let ids: string[] = [];
  const flush = async () => {
    for (let i = 0; i < ids.length; i += perCommit) {
      const chunk = ids.slice(i, i + perCommit);
      const done = await commitWithRetry(kv, async (op) => {
        const entries = await readEntries(kv, formId, chunk);
        let set = 0;
        let submissions = 0;
        for (const e of entries) {
          const s = e.value;
          if (!s || s.mode !== mode) continue;
          op.check(e.record, e.verdict);
          set += setOf(op, s, held);
          submissions++;
        }
        return submissions ? { set, submissions } : null;
      });
      report.entries_set += done?.set ?? 0;
      report.submissions += done?.submissions ?? 0;
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

function setOf(op: Deno.AtomicOperation, s: Submission, held: Set<string>): number {
  const { tokens, shared } = searchEntriesOf(s);
  tokens.forEach((t, i) => {
    op.set(
      keys.word(s.form_id, s.mode, t, s.number),
      entryValue(s.created_at, s.status, shared[i]),
    );
    held.add(`${t}\0${s.number}`);
  });
  return tokens.length;
}

/** Every token of the form's entries and counters, each once, in order. */
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

/** Pass 2: removes a token's entries that no stored submission holds. */
async function removeStrays(
  kv: Deno.Kv,
  formId: string,
  mode: Mode,
  token: string,
  held: Set<string>,
): Promise<number> {
  const suspects: number[] = [];
  for await (const e of kv.list({ prefix: [...keys.words(formId, mode), token] })) {
    const n = e.key[4] as number;
    if (!held.has(`${token}\0${n}`)) suspects.push(n);
  }
  let removed = 0;
  for (let i = 0; i < suspects.length; i += PER_COMMIT / 4) {
    const chunk = suspects.slice(i, i + PER_COMMIT / 4);
    removed += await commitWithRetry(kv, async (op) => {
      // Stored meanwhile (after pass 1 read the records) and holding it: not a stray.
      const marks = await getManyChunked<{ id: string }>(
        kv,
        chunk.map((n) => keys.submissionByNumber(formId, mode, n)),
      );
      const records = await getManyChunked<Submission>(
        kv,
        marks.map((m) => keys.submission(formId, m.value?.id ?? "-")),
      );
      let n = 0;
      chunk.forEach((number, j) => {
        const s = marks[j].value ? records[j].value : null;
        if (s && searchEntriesOf(s).tokens.includes(token)) return;
        op.check(marks[j]);
        op.delete(keys.word(formId, mode, token, number));
        n++;
      });
      return n || null;
    }) ?? 0;
  }
  return removed;
}

/** Pass 3: sets a token's counters to its entries' counts; whether any was wrong. */
async function recount(kv: Deno.Kv, formId: string, mode: Mode, token: string): Promise<boolean> {
  const fixed = await commitWithRetry(kv, async (op) => {
    // Counters first: a change to the entries after this read moves one of them.
    const counters = new Map<number, Deno.KvEntry<Deno.KvU64>>();
    for await (
      const e of kv.list<Deno.KvU64>({ prefix: [...keys.wordCounts(formId, mode), token] })
    ) counters.set(e.key[4] as number, e);
    const counts = new Map<number, number>();
    for await (const e of kv.list({ prefix: [...keys.words(formId, mode), token] })) {
      const shared = readEntryValue(e.value).shared;
      counts.set(shared, (counts.get(shared) ?? 0) + 1);
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
