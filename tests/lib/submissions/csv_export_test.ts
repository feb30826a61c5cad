import assert from "node:assert/strict";
import { csvCell, csvRow, submissionsCsv } from "@/lib/submissions/csv_export.ts";
import { seedSubmissions } from "@/bench/seed.ts";
import { makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";

Deno.test("csv export - cells", async (t) => {
  await t.step("formula-like text gets a leading quote mark", () => {
    for (const bad of ["=SUM(A1)", "+1", "-2+3", "@cmd", "\tx", "\rx"]) {
      assert.ok(csvCell(bad).replace(/^"/, "").startsWith("'"), bad);
    }
    assert.equal(csvCell("a=b"), "a=b");
    // Numbers from JSON cannot be formulas and stay numbers.
    assert.equal(csvCell(-5), "-5");
  });

  await t.step("formulas hidden behind whitespace, control characters or fullwidth forms", () => {
    const hidden = [
      " =1+1",
      "\n=1+1",
      "\u00a0=1+1",
      "\u0000@x",
      "\u200b+1",
      "\uff1d1+1",
      "\uff0b1",
      "\uff0d1",
      "\uff20cmd",
      "  \r\n \uff1dHYPERLINK(1)",
    ];
    for (const bad of hidden) {
      assert.ok(csvCell(bad).replace(/^"/, "").startsWith("'"), JSON.stringify(bad));
    }
    assert.equal(csvCell(" plain"), " plain");
    assert.equal(csvCell("\uff21"), "\uff21");
  });

  await t.step("quoting follows RFC 4180", () => {
    assert.equal(csvCell('say "hi", ok'), '"say ""hi"", ok"');
    assert.equal(csvCell("two\nlines"), '"two\nlines"');
    assert.equal(csvCell(null), "");
    assert.equal(csvCell(true), "true");
    assert.equal(csvCell(["a", "b"]), "a; b");
    assert.equal(csvCell({ path: "p/1", originalFilename: "cv.pdf" }), "cv.pdf (p/1)");
    assert.equal(csvCell({ x: 1 }), '"{""x"":1}"');
    assert.equal(csvRow(["a", 1]), "a,1\r\n");
  });
});

async function readAll(
  stream: ReadableStream<Uint8Array>,
): Promise<{ text: string; chunks: number }> {
  let text = "";
  let chunks = 0;
  const dec = new TextDecoder();
  for await (const c of stream) {
    text += dec.decode(c, { stream: true });
    chunks++;
  }
  return { text, chunks };
}

Deno.test("csv export - streams the filtered set in chunks", async (t) => {
  const day = 86_400_000;
  const now = Date.UTC(2026, 5, 30, 12);
  const env = await testEnv({}, { now: () => now });
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    // 1,000 submissions 40 days old, then 1,500 from the last week; every 10th is spam.
    const ids = await seedSubmissions(env.deps, form, 2_500, {
      createdAt: (i) => i < 1_000 ? now - 40 * day : now - 2 * day,
      status: (i) => (i % 10 === 0 ? "spam" : "completed"),
      fields: (i) => ({ name: `Person ${i}`, email: `p${i}@example.com` }),
    });

    await t.step("everything, newest first, over several chunks", async () => {
      const { text, chunks } = await readAll(
        submissionsCsv(env.deps, form, "live", { range: "all" }),
      );
      const lines = text.replace(/^\uFEFF/, "").trimEnd().split("\r\n");
      assert.equal(lines.length, 2_501);
      assert.ok(lines[1].startsWith(`${ids[2_499]},2500,`));
      assert.ok(lines[2_500].startsWith(`${ids[0]},1,`));
      assert.ok(chunks >= 12, `streamed in ${chunks} chunks`);
    });

    await t.step("status, range and search filters", async () => {
      const spam = await readAll(
        submissionsCsv(env.deps, form, "live", { status: "spam", range: "all" }),
      );
      assert.equal(spam.text.trimEnd().split("\r\n").length - 1, 250);
      const week = await readAll(submissionsCsv(env.deps, form, "live", { range: "7d" }));
      assert.equal(week.text.trimEnd().split("\r\n").length - 1, 1_500);
      const found = await readAll(
        submissionsCsv(env.deps, form, "live", { range: "all", search: "P1234@EXAMPLE" }),
      );
      const rows = found.text.trimEnd().split("\r\n").slice(1);
      assert.deepEqual(rows.map((r) => r.split(",")[0]), [ids[1_234]]);
    });

    await t.step("a consumer that stops early stops the walk", async () => {
      const reader = submissionsCsv(env.deps, form, "live", { range: "all" }).getReader();
      await reader.read();
      await reader.read();
      await reader.cancel();
    });
  } finally {
    env.close();
  }
});
