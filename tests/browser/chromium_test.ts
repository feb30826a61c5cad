/**
 * The browser tests' gate: a missing Chromium fails them in CI and skips them, loudly,
 * elsewhere; and every browser test file goes through that gate.
 */
import assert from "node:assert/strict";
import { CHROMIUM, chromiumPresent, inCi } from "./chromium.ts";

const MISSING = "/nonexistent/formwell-no-chromium";

Deno.test("browser gate - a missing Chromium", async (t) => {
  await t.step("CI values are read as CI runs see them", () => {
    for (const v of ["true", "1", "TRUE", "yes"]) assert.equal(inCi(v), true, v);
    for (const v of [undefined, "", "0", "false", "False"]) assert.equal(inCi(v), false, `${v}`);
  });

  await t.step("fails in CI", async () => {
    await assert.rejects(() => chromiumPresent(MISSING, true), /missing, and CI is set/);
  });

  await t.step("skips outside CI, with a warning", async () => {
    const warned: unknown[][] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warned.push(args);
    try {
      assert.equal(await chromiumPresent(MISSING, false), false);
    } finally {
      console.warn = warn;
    }
    assert.equal(warned.length, 1);
    assert.match(String(warned[0][0]), /SKIPPING THE BROWSER TESTS.*formwell-no-chromium/);
  });

  await t.step("a directory is not a browser", async () => {
    await assert.rejects(() => chromiumPresent(Deno.makeTempDirSync(), true));
  });

  await t.step("an installed one runs them, CI or not", async () => {
    const installed = await Deno.stat(CHROMIUM).then(() => true, () => false);
    if (!installed) return;
    assert.equal(await chromiumPresent(CHROMIUM, true), true);
  });
});

Deno.test("browser gate - every browser test file is gated by chromiumPresent", async () => {
  const dir = new URL(".", import.meta.url);
  const ungated: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (!e.name.endsWith("_test.ts") || e.name === "chromium_test.ts") continue;
    const src = await Deno.readTextFile(new URL(e.name, dir));
    const tests = src.match(/\bDeno\.test\(/g)?.length ?? 0;
    const gated = src.match(/ignore: !\(await chromiumPresent\(\)\)/g)?.length ?? 0;
    if (tests !== gated || /\bignore:(?!\s*!\(await chromiumPresent\(\)\))/.test(src)) {
      ungated.push(`${e.name}: ${tests} tests, ${gated} gated`);
    }
  }
  assert.deepEqual(ungated, []);
});
