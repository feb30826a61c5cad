/**
 * Tools observe Formwell from outside: the bench, the soak and the scripts pass what they
 * need to `buildDeps` (`DepsOverrides`) or read metrics, and never register into a list a
 * production module keeps, nor name their own KV keys in lib/kv/keys.ts.
 * @module
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url).pathname;
const TOOLS = ["bench", "scripts"];

/** Source files under `dir` (project-relative), recursively. */
async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...await sources(path));
    else if (/\.tsx?$/.test(e.name)) out.push(path);
  }
  return out;
}

/** The lib exports `source` imports and then mutates in place (push, set, add...). */
function mutatedLibImports(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/import\s*\{([^}]*)\}\s*from\s*"@\/lib\/[^"]+"/g)) {
    for (const part of m[1].split(",")) {
      const name = part.replace(/^\s*type\s+/, "").split(/\s+as\s+/).pop()!.trim();
      if (!name || /^type\s/.test(part.trim())) continue;
      const use = new RegExp(`\\b${name}\\.(push|unshift|splice|set|add)\\(`);
      if (use.test(source)) found.push(name);
    }
  }
  return found;
}

Deno.test("architecture - the rule finds a tool pushing into a lib list", () => {
  const hooked = `import { afterVerdict } from "@/lib/protection/verdict.ts";\n` +
    `afterVerdict.push({ after: () => Promise.resolve() });`;
  assert.deepEqual(mutatedLibImports(hooked), ["afterVerdict"]);
  const clean = `import { keys } from "@/lib/kv/keys.ts";\nconst m = new Map();\nm.set(1, 2);`;
  assert.deepEqual(mutatedLibImports(clean), []);
});

Deno.test("architecture - tools register nothing into production modules", async () => {
  const found: string[] = [];
  for (const dir of TOOLS) {
    for (const path of await sources(dir)) {
      const names = mutatedLibImports(await Deno.readTextFile(`${ROOT}${path}`));
      for (const name of names) found.push(`${path} mutates ${name}`);
    }
  }
  assert.deepEqual(found, []);
});

Deno.test("architecture - lib/kv/keys.ts names no key of the bench or the soak", async () => {
  const code = (await Deno.readTextFile(`${ROOT}lib/kv/keys.ts`))
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\/\/.*$/gm, "");
  assert.doesNotMatch(code, /soak|bench|probe/i);
});
