/**
 * The docs folder as users meet it: user docs carry no issue numbers, the README links every
 * doc, the decisions index lists every decision, and every relative link resolves.
 */
import assert from "node:assert/strict";
import { ROOT } from "@/tests/processes.ts";

/** Every Markdown file under `dir` (relative to the repository), recursively. */
async function markdownFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...await markdownFiles(path));
    else if (entry.name.endsWith(".md")) out.push(path);
  }
  return out.sort();
}

Deno.test("no user doc under docs/ (decisions aside) mentions an issue number", async () => {
  const offenders: string[] = [];
  for (const path of await markdownFiles("docs")) {
    if (path.startsWith("docs/decisions/")) continue;
    const text = await Deno.readTextFile(`${ROOT}${path}`);
    for (const m of text.matchAll(/\bissues?\s*#?\s*\d+/gi)) offenders.push(`${path}: ${m[0]}`);
  }
  assert.deepEqual(offenders, []);
});

Deno.test("README.md links every doc in docs/ and the decisions index", async () => {
  const readme = await Deno.readTextFile(`${ROOT}README.md`);
  const docs = (await markdownFiles("docs")).filter((p) => !p.startsWith("docs/decisions/"));
  const missing = [...docs, "docs/decisions/README.md"].filter((p) => !readme.includes(`](${p})`));
  assert.deepEqual(missing, []);
});

Deno.test("docs/decisions/README.md lists every decision file once", async () => {
  const index = await Deno.readTextFile(`${ROOT}docs/decisions/README.md`);
  const files = (await markdownFiles("docs/decisions")).map((p) =>
    p.slice("docs/decisions/".length)
  )
    .filter((name) => name !== "README.md");
  const listed = [...index.matchAll(/^- \[([a-z0-9-]+\.md)\]\(\1\)/gm)].map((m) => m[1]);
  assert.deepEqual(listed.toSorted(), files);
});

Deno.test("relative links in README.md and docs/ point to files that exist", async () => {
  const broken: string[] = [];
  for (const path of ["README.md", ...await markdownFiles("docs")]) {
    const text = await Deno.readTextFile(`${ROOT}${path}`);
    const base = new URL(path, `file://${ROOT}`);
    for (const [, target] of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const file = new URL(target, base).pathname;
      try {
        await Deno.stat(file);
      } catch {
        broken.push(`${path}: ${target}`);
      }
    }
  }
  assert.deepEqual(broken, []);
});
