import assert from "node:assert/strict";

/**
 * Every KV conflict retry goes through `commitWithRetry` (lib/kv/kv.ts): this test finds
 * hand-written ones in lib/ and routes/. A hand-written retry is a loop that commits (an
 * operation's `.commit(`, or a `commit...(` function) and either counts attempts
 * (`attempt`, `tries`, `retries`), runs forever (`;;`, `while (true)`) or leaves on a
 * commit's `ok`; or a loop that counts attempts and backs off (`delay(`). Loops over data
 * (`for...of`, `for await`, chunks stepped with `+=`) are not retries.
 */

const PROJECT = new URL("..", import.meta.url).pathname;
const FOLDERS = ["lib", "routes"];
/** The helper itself. */
const HELPER = "lib/kv/kv.ts";
/**
 * Files still holding a loop, each with what it waits on; the list only shrinks (a listed
 * file without a loop fails too, so the entry goes when the loop does).
 */
const PENDING: Record<string, string> = {};

/** Source text with comments and string contents blanked (lengths and newlines kept). */
export function codeOnly(src: string): string {
  let out = "";
  let i = 0;
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  while (i < src.length) {
    const two = src.slice(i, i + 2);
    let end: number;
    if (two === "//") {
      end = src.indexOf("\n", i);
      if (end < 0) end = src.length;
    } else if (two === "/*") {
      end = src.indexOf("*/", i + 2);
      end = end < 0 ? src.length : end + 2;
    } else if (src[i] === '"' || src[i] === "'" || src[i] === "`") {
      const q = src[i];
      end = i + 1;
      while (end < src.length && src[end] !== q) end += src[end] === "\\" ? 2 : 1;
      out += q + blank(src.slice(i + 1, end)) + q;
      i = end + 1;
      continue;
    } else {
      out += src[i++];
      continue;
    }
    out += blank(src.slice(i, end));
    i = end;
  }
  return out;
}

/** The index just past the bracket closing the one at `open`. */
function closing(code: string, open: number): number {
  const pair: Record<string, string> = { "(": ")", "{": "}" };
  const want = pair[code[open]];
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === code[open]) depth++;
    else if (code[i] === want && --depth === 0) return i + 1;
  }
  return code.length;
}

/** The 1-based lines where a hand-written commit retry loop starts in `src`. */
export function retryLoops(src: string): number[] {
  const code = codeOnly(src);
  const found: number[] = [];
  for (const m of code.matchAll(/\b(for|while)\s*\(|\bdo\s*\{/g)) {
    let header = "";
    let bodyAt: number;
    if (m[0].startsWith("do")) {
      bodyAt = m.index + m[0].length - 1;
    } else {
      const open = m.index + m[0].length - 1;
      const close = closing(code, open);
      header = code.slice(open, close);
      bodyAt = close + (/^\s*/.exec(code.slice(close))![0].length);
    }
    const body = code[bodyAt] === "{"
      ? code.slice(bodyAt, closing(code, bodyAt))
      : code.slice(bodyAt, code.indexOf(";", bodyAt) + 1);
    if (m[0].startsWith("for") && /\b(of|in)\b|\+=/.test(header) && !/;;/.test(header)) {
      continue;
    }
    if (m[0].startsWith("for") && /^\(\s*await\b/.test(header)) continue;
    const commits = /\.commit\(|\bcommit[A-Z]\w*\(|#commit\w*\(/.test(body);
    const counts = /\b(attempts?|tries|retries|retry)\b|;\s*;|^\(\s*true\s*\)$/.test(header);
    const leavesOnOk = /\.ok\)*\s*(\{[^}]*)?\b(return|break)\b/.test(body);
    const backsOff = counts && /\bdelay\(/.test(body);
    if ((commits && (counts || leavesOnOk || m[0].startsWith("do"))) || backsOff) {
      found.push(code.slice(0, m.index).split("\n").length);
    }
  }
  return found;
}

async function sourceFiles(folder: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(`${PROJECT}${folder}`)) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory) found.push(...await sourceFiles(path));
    else if (/\.tsx?$/.test(entry.name)) found.push(path);
  }
  return found.sort();
}

Deno.test("architecture - conflict retries", async (t) => {
  await t.step("the finder sees hand-written retries and passes data loops", () => {
    const retry = `
      for (let attempt = 0; attempt < 10; attempt++) {
        const res = await op.commit();
        if (res.ok) return next;
      }
      while (true) { const r = await kv.atomic().commit(); if (r.ok) break; }
      for (;;) {
        if ((await op.commit()).ok) return;
      }
      for (let n = 0; n < 5; n++) {
        const res = await withKvRetry(() => op.commit());
        if (res.ok) { remember(res); return res; }
      }
      do { res = await op.commit(); } while (!res.ok);
      for (let attempt = 0; attempt < 9; attempt++) {
        const res = await commitAppending(kv, head, build);
        if (res.ok) return;
      }
      for (let attempt = 0; live.length; attempt++) {
        live = await this.#attempt(live);
        await delay(2 ** attempt);
      }`;
    assert.deepEqual(retryLoops(retry), [2, 6, 7, 10, 14, 15, 19]);
    const fine = `
      for (let i = 0; i < jobs.length; i += 50) {
        if (!(await op.commit()).ok) throw new Error("failed");
      }
      for (const group of groups) {
        await commitWithRetry(kv, async (op) => group.length ? group : null);
      }
      for await (const e of kv.list({ prefix })) { if (++n % 100 === 0) await op.commit(); }
      while (this.#finished.length) {
        await withKvRetry(() => op.commit());
      }
      // for (let attempt = 0; attempt < 3; attempt++) { op.commit(); if (res.ok) return; }
      const s = "for (;;) { op.commit(); if (r.ok) return; }";
      for (let attempt = 0; attempt < 3; attempt++) await fetch(url);`;
    assert.deepEqual(retryLoops(fine), []);
  });

  await t.step("lib/ and routes/ retry conflicts only through commitWithRetry", async () => {
    const found: string[] = [];
    const pendingSeen = new Set<string>();
    for (const folder of FOLDERS) {
      for (const file of await sourceFiles(folder)) {
        if (file === HELPER) continue;
        const lines = retryLoops(await Deno.readTextFile(`${PROJECT}${file}`));
        if (!lines.length) continue;
        if (file in PENDING) pendingSeen.add(file);
        else found.push(...lines.map((l) => `${file}:${l}`));
      }
    }
    assert.deepEqual(found, [], `hand-written commit retry loops:\n${found.join("\n")}`);
    const stale = Object.keys(PENDING).filter((f) => !pendingSeen.has(f));
    assert.deepEqual(stale, [], "pending files without a loop: drop them from PENDING");
  });
});
