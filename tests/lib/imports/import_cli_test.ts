/**
 * `import` through the real CLI process: its stdout answer, bad rows and progress on
 * stderr, and a crash: an import killed (SIGKILL) in the middle leaves whole batches only,
 * every counter and index equal to a recount, and running it again imports the rest.
 * @module
 */
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { batchesOf } from "@/lib/imports/commit.ts";
import { makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { DENO, ROOT, runCliProcess } from "@/tests/processes.ts";
import { assertCountersExact, recordsOf } from "@/tests/recount.ts";
import { IMPORT_FORM, SAMPLES } from "./_support.ts";

async function formIn(kvPath: string): Promise<string> {
  const env = await testEnv({ KV_PATH: kvPath });
  const ws = await makeWorkspace(env.deps, "pro");
  const form = await makeForm(env.deps, ws, IMPORT_FORM);
  env.close();
  return form.id;
}

async function count(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix })) n++;
  return n;
}

Deno.test("import (CLI) - answer on stdout, bad rows by line on stderr", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-import-" });
  const kvPath = `${dir}/kv.sqlite`;
  const formId = await formIn(kvPath);
  const env = { KV_PATH: kvPath, FORMWELL_SEED: "0" };
  const args = ["import", "--form", formId, "--file", `${SAMPLES}formspree.csv`];
  const first = await runCliProcess(env, ...args, "--format", "formspree");
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(JSON.parse(first.stdout), { imported: 3, skipped: 2 });
  assert.match(first.stderr, /^line 5 skipped: '_date' is not a time/m);
  assert.match(first.stderr, /^line 6 skipped: 'budget' is not a number/m);
  const again = await runCliProcess(env, ...args, "--format", "formspree");
  assert.deepEqual(JSON.parse(again.stdout), { imported: 0, skipped: 5 });
  const oldFile = `${dir}/old.csv`;
  await Deno.writeTextFile(oldFile, "created_at,name\n1960-01-01,Old\n2024-01-02,New\n");
  const old = await runCliProcess(env, "import", "--form", formId, "--file", oldFile);
  assert.equal(old.code, 0, old.stderr);
  assert.deepEqual(JSON.parse(old.stdout), { imported: 1, skipped: 1 });
  assert.match(old.stderr, /^line 2 skipped: 'created_at' is before 1970: '1960-01-01'/m);
  const wrong = await runCliProcess(env, ...args, "--format", "typeform");
  assert.notEqual(wrong.code, 0);
  assert.match(JSON.parse(wrong.stderr).error, /--format must be one of csv, formspree/);
  const missing = await runCliProcess(env, "import", "--form", "fNope00000000", "--file", "x");
  assert.notEqual(missing.code, 0);
  assert.match(JSON.parse(missing.stderr).error, /Form not found/);
});

Deno.test("import (CLI) - killed mid-import: whole batches only, a re-run completes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-import-" });
  const kvPath = `${dir}/kv.sqlite`;
  const formId = await formIn(kvPath);
  const rows = 8_000;
  const lines = ["created_at,name,email,message,budget"];
  const t0 = Date.parse("2023-01-01T00:00:00Z");
  for (let i = 0; i < rows; i++) {
    lines.push(
      `${new Date(t0 + i * 60_000).toISOString()},P${i},p${i}@example.com,Hello ${i},${i}`,
    );
  }
  const file = `${dir}/big.csv`;
  await Deno.writeTextFile(file, lines.join("\n") + "\n");
  const env = { NO_COLOR: "1", KV_PATH: kvPath, FORMWELL_SEED: "0" };
  const args = ["run", "-A", "cli.ts", "import", "--form", formId, "--file", file];

  // Killed right after its first progress line (some 1,000 rows in).
  const child = new Deno.Command(DENO, { args, cwd: ROOT, env, stdout: "null", stderr: "piped" })
    .spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("progress:")) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += value;
  }
  child.kill("SIGKILL");
  await child.status;
  await reader.cancel().catch(() => {});
  assert.match(seen, /progress: 1\d{3} of 8000 rows/);

  const check = await testEnv({ KV_PATH: kvPath });
  try {
    const kv = check.deps.kv;
    const stored = await count(kv, keys.submissions(formId));
    assert.ok(stored >= 1000 && stored < rows, `killed mid-import (${stored} stored)`);
    // The batches the importer cuts these rows into (the same values, so the same words).
    const sizes = batchesOf(
      formId,
      Array.from({ length: rows }, (_, i) => ({
        line: i + 2,
        created_at: new Date(t0 + i * 60_000).toISOString(),
        fields: { name: `P${i}`, email: `p${i}@example.com`, message: `Hello ${i}`, budget: i },
        metadata: {},
        status: "completed" as const,
        signals: {},
        digest: String(i),
      })),
    ).map((b) => b.length);
    const ends = sizes.map((_, i) => sizes.slice(0, i + 1).reduce((a, b) => a + b, 0));
    assert.ok(ends.includes(stored), `whole batches only (${stored} stored)`);
    assert.equal(await count(kv, keys.importedRows(formId)), stored, "one mark per row");
    assert.equal((await kv.get(keys.submissionSeq(formId, "live"))).value, stored);
    await assertCountersExact(kv, formId, "live");
  } finally {
    check.close();
  }

  const rerun = await runCliProcess(env, ...args.slice(3));
  assert.equal(rerun.code, 0, rerun.stderr);
  const out = JSON.parse(rerun.stdout);
  assert.equal(out.imported + out.skipped, rows);
  assert.ok(out.imported > 0 && out.skipped >= 1000);
  assert.equal(rerun.stderr.match(/^progress: /gm)?.length, rows / 1000);

  const done = await testEnv({ KV_PATH: kvPath });
  try {
    const subs = await recordsOf(done.deps.kv, formId, "live");
    assert.equal(subs.length, rows);
    // Numbers follow the original times, each row once.
    const byNumber = subs.sort((a, b) => a.number - b.number);
    assert.ok(byNumber.every((s, i) => s.number === i + 1 && s.fields.name === `P${i}`));
    assert.equal(byNumber[0].created_at, "2023-01-01T00:00:00.000Z");
    await assertCountersExact(done.deps.kv, formId, "live");
  } finally {
    done.close();
  }
});
