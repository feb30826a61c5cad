/**
 * The `formwell/kv-retry` lint rule (lint/plugin.ts), run the way the project runs it: a
 * `deno lint` process with the plugin registered in `deno.json`, over a sample of
 * hand-written retries (each must be flagged) and one of loops that are not (none may be).
 */
import assert from "node:assert/strict";

const PROJECT = new URL("../../", import.meta.url);
const PLUGIN = new URL("lint/plugin.ts", PROJECT);
const FIXTURES = new URL("fixtures/", import.meta.url);
const RULE = "formwell/kv-retry";

interface LintJson {
  diagnostics: { filename: string; code: string; range: { start: { line: number } } }[];
  errors: unknown[];
}

/** Runs `deno lint --json` on `files` (name -> source) under `lib/` of a new project. */
async function lint(files: Record<string, string>): Promise<LintJson> {
  const dir = await Deno.makeTempDir({ prefix: "formwell-lint-" });
  try {
    const config = { lint: { plugins: [PLUGIN.href] } };
    await Deno.writeTextFile(`${dir}/deno.json`, JSON.stringify(config));
    await Deno.mkdir(`${dir}/lib`);
    for (const [name, source] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/lib/${name}`, source);
    }
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["lint", "--json"],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.ok(text.trim(), new TextDecoder().decode(out.stderr));
    return JSON.parse(text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The lines `formwell/kv-retry` flagged in `file`. */
function flagged(result: LintJson, file: string): number[] {
  return result.diagnostics
    .filter((d) => d.code === RULE && d.filename.endsWith(`/lib/${file}`))
    .map((d) => d.range.start.line);
}

Deno.test("lint - formwell/kv-retry", async (t) => {
  const bad = await Deno.readTextFile(new URL("kv_retry_bad.ts", FIXTURES));
  const good = await Deno.readTextFile(new URL("kv_retry_good.ts", FIXTURES));
  const result = await lint({ "bad.ts": bad, "good.ts": good });
  assert.deepEqual(result.errors, []);

  await t.step("flags every hand-written retry of the bad sample", () => {
    const marked = bad.split("\n").flatMap((line, i) => line.includes("// flagged") ? [i + 1] : []);
    assert.equal(marked.length, 7);
    assert.deepEqual(flagged(result, "bad.ts"), marked);
  });

  await t.step("passes loops over data, commits without a retry and comments", () => {
    assert.deepEqual(flagged(result, "good.ts"), []);
  });

  await t.step("a retry that says why it is allowed is passed", async () => {
    const excused = bad.replace(
      "  while (true) { // flagged",
      `  // deno-lint-ignore ${RULE} -- a test of the ignore comment\n  while (true) {`,
    );
    const lines = flagged(await lint({ "bad.ts": excused }), "bad.ts");
    assert.equal(lines.length, 6);
  });

  await t.step("the project's deno.json runs the rule", async () => {
    const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", PROJECT)));
    assert.ok(config.lint.plugins.includes("./lint/plugin.ts"));
  });
});
