import assert from "node:assert/strict";
import {
  COMMON_WORD,
  ERASE_EMAIL,
  needleClashes,
  RARE_WORD,
  ScaleDataset,
} from "@/bench/scale_data.ts";
import { loadDataset, storedByFamily } from "@/bench/scale_load.ts";
import { grouped, loadLines } from "@/bench/scale.ts";
import { SIX_FIELDS } from "@/bench/fixtures.ts";
import { createForm } from "@/lib/forms/forms.ts";
import { emailDigest, emailMatches } from "@/lib/privacy/email_index.ts";
import { readSubmissions } from "@/lib/submissions/records.ts";
import { listSubmissions } from "@/lib/submissions/query.ts";
import { assertCountersExact, assertSearchIndexExact } from "@/tests/recount.ts";
import { compareKeys, KvBuffer } from "@/bench/kv_buffer.ts";
import { makeWorkspace, testEnv } from "@/tests/helpers.ts";

/** The words of a value, folded as a search folds them (case and accents). */
function words(v: unknown): string[] {
  return String(v).normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().split(/[^a-z0-9]+/);
}

Deno.test("scale dataset - the planted needles are exactly where the dataset says", () => {
  assert.deepEqual(needleClashes(), []);
  const data = new ScaleDataset(3_001);
  let common = 0;
  const rare: number[] = [];
  let erased = 0;
  for (let i = 0; i < data.n; i++) {
    const f = data.fields(i);
    const all = Object.values(f).flatMap(words);
    if (all.some((w) => w.startsWith(COMMON_WORD))) common++;
    if (all.some((w) => w.startsWith(RARE_WORD))) rare.push(i);
    if (f.email === ERASE_EMAIL) {
      assert.ok(data.erased(i));
      erased++;
    }
  }
  assert.equal(common, data.counts().common);
  assert.deepEqual(rare, data.rare);
  assert.equal(rare[0], 0, "the oldest holds the rare word");
  assert.equal(rare.at(-1), data.n - 1, "and so does the newest");
  assert.equal(erased, data.counts().erased);
  assert.equal(erased, 300);
  // The first 1,000 written hold fewer of each.
  let erasedBefore = 0;
  for (let i = 0; i < 1_000; i++) if (data.erased(i)) erasedBefore++;
  assert.deepEqual(data.counts(1_000), {
    rare: rare.filter((i) => i < 1_000).length,
    common: 333,
    erased: erasedBefore,
  });
  assert.equal(data.counts(1_000).rare, 3);
  assert.deepEqual(data.fields(1234), new ScaleDataset(3_001).fields(1234), "deterministic");
  assert.notDeepEqual(data.fields(1234), data.fields(1235));
});

Deno.test("scale dataset - loaded through the buffer with every index and exact counters", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-scale-test-" });
  const path = `${dir}/scale.kv`;
  const env = await testEnv({ KV_PATH: path });
  try {
    const ws = await makeWorkspace(env.deps, "business");
    const form = await createForm(env.deps, ws.id, { name: "Scale", fields: SIX_FIELDS });
    const data = new ScaleDataset(700);
    const done: number[] = [];
    const buffer = new KvBuffer(env.deps.kv);
    const { stored, rareIds } = await loadDataset(env.deps, form, data, {
      progress: (n) => done.push(n),
      buffer,
    });
    assert.equal(stored, 700);
    assert.deepEqual(done, [700]);
    assert.equal(buffer.mutations.submissions, 700);
    assert.ok(buffer.flushCommits > 1 && buffer.commits > 1);
    await assertSearchIndexExact(env.deps.kv, form.id, "live");
    // Past its deadline a load writes nothing more.
    const late = await loadDataset(env.deps, form, data, { deadline: performance.now() });
    assert.deepEqual(late, { stored: 0, rareIds: [] });
    await assertCountersExact(env.deps.kv, form.id, "live");
    const page = await listSubmissions(env.deps, form, "live", {
      page: 1,
      limit: 100,
      range: "all",
    });
    assert.equal(page.pagination.total, 700);
    // Newest first, spread over the last year.
    assert.equal(page.submissions[0].submission_number, 700);
    const days = (Date.now() - Date.parse(page.submissions[0].created_at)) / 86_400_000;
    assert.ok(days < 1, `newest is ${days} days old`);
    const rare = await readSubmissions(env.deps.kv, form.id, rareIds);
    assert.equal(rare.length, data.rare.length);
    for (const s of rare) assert.match(String(s!.fields.name), /Quennell$/);
    const oldest = (Date.now() - Date.parse(rare[0]!.created_at)) / 86_400_000;
    assert.ok(oldest > 360, `the oldest rare one is ${oldest} days old`);
    const digest = emailDigest(env.deps.secret, ERASE_EMAIL);
    const matches = await emailMatches(env.deps.kv, ws.id, digest, "live", 1_000);
    assert.equal(matches.length, data.eraseCount);
    assert.equal(matches.length, 70);
  } finally {
    env.close();
  }
  const stored = storedByFamily(path);
  assert.equal(stored.submissions.rows, 700);
  assert.equal(stored.submissions_by_email.rows, 700);
  assert.ok(stored.submissions.bytes > 700 * 300, `${stored.submissions.bytes} bytes`);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("scale rows - counts are written with thousands separators", () => {
  assert.equal(grouped(1_000_000), "1,000,000");
  assert.equal(grouped(20_000), "20,000");
});

Deno.test("kv buffer - what it flushes equals writing directly, in KV's key order", async () => {
  const direct = await Deno.openKv(":memory:");
  const buffered = await Deno.openKv(":memory:");
  try {
    const buffer = new KvBuffer(buffered);
    let flushing: Promise<void> | null = null;
    const write = async (kv: Deno.Kv, halfway = () => {}) => {
      for (let i = 0; i < 30; i++) {
        if (i === 15) halfway();
        const op = kv.atomic();
        op.set(["rows", `r${(i * 7) % 30}`], { i });
        op.sum(["count", i % 3], 2n);
        if (i % 10 === 9) op.sum(["count", 0], 2n ** 64n - 1n); // minus one
        op.set(["seq"], i);
        assert.ok((await op.commit()).ok);
      }
      assert.equal((await kv.get(["seq"])).value, 29, "reads see the writes");
    };
    await write(direct);
    // A flush starts halfway; the writes go on meanwhile and read what it is writing.
    await write(buffer.kv, () => flushing = buffer.flush());
    await flushing;
    assert.equal((await buffered.get(["seq"])).value, 14, "the second half is not written yet");
    await buffer.flush();
    const all = async (kv: Deno.Kv) =>
      (await Array.fromAsync(kv.list({ prefix: [] }))).map((e) => [e.key, e.value]);
    assert.deepEqual(await all(buffered), await all(direct));
    assert.equal(buffer.mutations.rows, 30);
    assert.equal(buffer.commits, 30);
    assert.equal(buffer.flushCommits, 2);
  } finally {
    direct.close();
    buffered.close();
  }
  assert.ok(compareKeys(["a", 2], ["a", 10]) < 0);
  assert.ok(compareKeys(["a", "z"], ["a", 1]) < 0, "strings before numbers");
  assert.ok(compareKeys(["a"], ["a", 1]) < 0);
});

Deno.test("scale rows - the load's lines split the search index's cost from the rest", () => {
  const MB = 1024 * 1024;
  const lines = loadLines({
    n: 20,
    stored: 10,
    formId: "f",
    workspaceId: "w",
    key: "k",
    rareIds: [],
    seconds: 2,
    commits: 3,
    flushCommits: 1,
    mutations: { words: 370, word_counts: 220, submissions: 10 },
    fileBytes: 7 * MB,
    families: {
      words: { rows: 370, bytes: 2 * MB },
      submissions: { rows: 10, bytes: MB },
    },
  }).join("\n");
  assert.match(lines, /10 six-field submissions .* in 2 s \(5 submissions\/s\)/);
  assert.match(lines, /60\.00 in all, 1\.00 without the search index, 59\.00 for it/);
  assert.match(lines, /KV file 7 MB for 10 \(700000 MB per 1,000,000\)/);
  assert.match(lines, /keys and values of 300000 MB .* the search index's 200000 MB/);
});
