/**
 * Test support: recounts a form's submissions from the records themselves and compares
 * every counter and index the writer keeps (counts, blocks, daily, number and status
 * indexes with the scoring marks, the search index and its counters) with the recount.
 * @module
 */
import assert from "node:assert/strict";
import { keys, type Mode } from "@/lib/kv/keys.ts";
import { u64Value, utcDay } from "@/lib/kv/kv.ts";
import type { Submission } from "@/lib/schemas.ts";
import { BLOCK_SIZE } from "@/lib/submissions/indexes.ts";
import { type StoredVerdict, withVerdict } from "@/lib/submissions/records.ts";
import { searchEntriesOf } from "@/lib/search/entries.ts";
import { blockStart, dayOfTimestamp, unpackGroup } from "@/lib/search/postings.ts";

/**
 * Every submission of a form in one mode (records with their verdicts applied), newest
 * (highest number) first. Asserts that no verdict outlives its record.
 */
export async function recordsOf(kv: Deno.Kv, formId: string, mode: Mode): Promise<Submission[]> {
  const verdicts = new Map<string, StoredVerdict>();
  for await (const e of kv.list<StoredVerdict>({ prefix: keys.submissionVerdicts(formId) })) {
    verdicts.set(e.key[2] as string, e.value);
  }
  const out: Submission[] = [];
  for await (const e of kv.list<Submission>({ prefix: keys.submissions(formId) })) {
    const verdict = verdicts.get(e.value.id) ?? null;
    verdicts.delete(e.value.id);
    if (e.value.mode === mode) out.push(withVerdict(e.value, verdict));
  }
  assert.deepEqual([...verdicts.keys()], [], "verdicts without a record");
  return out.sort((a, b) => b.number - a.number);
}

async function nonZero(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for await (const e of kv.list({ prefix })) {
    const n = u64Value(e.value);
    if (n !== 0) out.set(JSON.stringify(e.key.slice(prefix.length)), n);
  }
  return out;
}

/** Asserts that counters and indexes of `formId` in `mode` equal a recount of its records. */
export async function assertCountersExact(kv: Deno.Kv, formId: string, mode: Mode): Promise<void> {
  const records = await recordsOf(kv, formId, mode);
  const counts = new Map<string, number>();
  const blocks = new Map<string, number>();
  const daily = new Map<string, number>();
  const inc = (m: Map<string, number>, k: unknown[]) => {
    const id = JSON.stringify(k);
    m.set(id, (m.get(id) ?? 0) + 1);
  };
  const byNumber = new Map<string, string>();
  const byStatus = new Map<string, string>();
  for (const s of records) {
    for (const bucket of ["all", s.status]) {
      inc(counts, [bucket]);
      inc(blocks, [bucket, Math.floor(s.number / BLOCK_SIZE)]);
      inc(daily, [bucket, utcDay(Date.parse(s.created_at))]);
    }
    byNumber.set(JSON.stringify([s.number]), s.id);
    byStatus.set(JSON.stringify([s.status, s.number]), s.id);
  }
  const prefixOf = (k: Deno.KvKey) => k.slice(0, 3);
  assert.deepEqual(
    await nonZero(kv, prefixOf(keys.submissionCount(formId, mode, "all"))),
    counts,
    "submission_counts",
  );
  assert.deepEqual(
    await nonZero(kv, prefixOf(keys.submissionBlock(formId, mode, "all", 0))),
    blocks,
    "submission_blocks",
  );
  assert.deepEqual(
    await nonZero(kv, prefixOf(keys.submissionDaily(formId, mode, "all", ""))),
    daily,
    "submission_daily",
  );
  const index = async (prefix: Deno.KvKey) => {
    const m = new Map<string, string>();
    for await (const e of kv.list<string>({ prefix })) {
      m.set(JSON.stringify(e.key.slice(prefix.length)), e.value);
    }
    return m;
  };
  const numberIndex = new Map<string, string>();
  for await (
    const e of kv.list<{ id: string }>({ prefix: keys.submissionsByNumber(formId, mode) })
  ) {
    numberIndex.set(JSON.stringify(e.key.slice(3)), e.value.id);
  }
  assert.deepEqual(numberIndex, byNumber, "number index (with each scoring mark)");
  assert.deepEqual(
    await index(prefixOf(keys.submissionByStatus(formId, mode, "all", 0))),
    byStatus,
    "status index",
  );
  await assertSearchIndexExact(kv, formId, mode, records);
}

/**
 * Asserts that the search index of `formId` in `mode` (entries and counters) holds exactly
 * what the records give: an entry per token with the record's day and status, and each
 * counter the number of records holding its token and `shared`.
 */
export async function assertSearchIndexExact(
  kv: Deno.Kv,
  formId: string,
  mode: Mode,
  records?: Submission[],
): Promise<void> {
  const expectedEntries = new Map<string, string>();
  const expectedCounts = new Map<string, number>();
  for (const s of records ?? await recordsOf(kv, formId, mode)) {
    const { tokens, shared } = searchEntriesOf(s);
    tokens.forEach((t, i) => {
      expectedEntries.set(
        JSON.stringify([t, s.number]),
        JSON.stringify([dayOfTimestamp(s.created_at), s.status, shared[i]]),
      );
      const c = JSON.stringify([t, shared[i]]);
      expectedCounts.set(c, (expectedCounts.get(c) ?? 0) + 1);
    });
  }
  const entries = new Map<string, string>();
  for await (const e of kv.list({ prefix: keys.words(formId, mode) })) {
    const [token, first] = e.key.slice(3) as [string, number];
    const postings = unpackGroup(first, e.value);
    assert.ok(postings.length, `an empty search group ${JSON.stringify(e.key)}`);
    for (const p of postings) {
      assert.equal(blockStart(p.n), blockStart(first), "a group within one block");
      const id = JSON.stringify([token, p.n]);
      assert.ok(!entries.has(id), `${id} listed twice`);
      entries.set(id, JSON.stringify([p.day, p.status, p.shared]));
    }
  }
  assert.deepEqual(entries, expectedEntries, "search index entries");
  assert.deepEqual(
    await nonZero(kv, keys.wordCounts(formId, mode)),
    expectedCounts,
    "search counters",
  );
}
