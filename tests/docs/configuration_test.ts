/**
 * docs/configuration.md stays true to lib/config.ts: every variable the config reads (its
 * env schema, and any other `env.NAME` it looks at) has a row, and every row names a
 * variable the config reads.
 */
import assert from "node:assert/strict";
import { envSchema } from "@/lib/config.ts";
import { ROOT } from "@/tests/processes.ts";

/** The variables lib/config.ts reads: the schema's keys plus direct `env.NAME` reads. */
async function configVariables(): Promise<Set<string>> {
  const source = await Deno.readTextFile(`${ROOT}lib/config.ts`);
  const direct = [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)].map((m) => m[1]);
  return new Set([...Object.keys(envSchema.shape), ...direct]);
}

/** The variables docs/configuration.md documents: the first cell of every table row. */
async function documentedVariables(): Promise<string[]> {
  const doc = await Deno.readTextFile(`${ROOT}docs/configuration.md`);
  return [...doc.matchAll(/^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/gm)].map((m) => m[1]);
}

Deno.test("every variable lib/config.ts reads is documented in docs/configuration.md", async () => {
  const documented = new Set(await documentedVariables());
  const missing = [...await configVariables()].filter((name) => !documented.has(name));
  assert.deepEqual(missing, [], `missing from docs/configuration.md: ${missing.join(", ")}`);
});

Deno.test("docs/configuration.md documents only variables lib/config.ts reads", async () => {
  const read = await configVariables();
  const extra = (await documentedVariables()).filter((name) => !read.has(name));
  assert.deepEqual(extra, [], `documented but not read by lib/config.ts: ${extra.join(", ")}`);
});

Deno.test("docs/configuration.md lists each variable once", async () => {
  const rows = await documentedVariables();
  assert.deepEqual(rows.filter((name, i) => rows.indexOf(name) !== i), []);
});

Deno.test("the configuration's own names are found (the checks above are not vacuous)", async () => {
  const read = await configVariables();
  for (const name of ["PORT", "SMTP_URL", "WEBHOOK_ALLOW_PRIVATE", "DENO_DEPLOYMENT_ID"]) {
    assert.ok(read.has(name), name);
  }
});
