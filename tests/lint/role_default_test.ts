/**
 * The `formwell/role-default` lint rule (lint/plugin.ts), run as the project runs it: a
 * `deno lint` process with the plugin, over role fallbacks (each flagged) and code that
 * names its roles or defaults something else (none flagged); then over the project itself.
 */
import assert from "node:assert/strict";

const PROJECT = new URL("../../", import.meta.url);
const PLUGIN = new URL("lint/plugin.ts", PROJECT);
const RULE = "formwell/role-default";

const BAD = `type Role = "viewer" | "admin" | "owner";
export const a = (user: { role?: Role }) => user.role ?? "owner"; // flagged
export const b = (roles: Record<string, Role>, id: string) => roles[id] || "viewer"; // flagged
export function c(role: Role = "admin") { return role; } // flagged
export function d({ role = "viewer" }: { role?: Role }) { return role; } // flagged
`;
const GOOD = `type Role = "viewer" | "admin" | "owner";
export const a = (user: { role: Role | null }) => user.role ?? null;
export function may(role: Role | null, need: Role = "admin") { return role === need; }
export const label = (name?: string) => name ?? "admin";
export const owner = (user: { owner: boolean }) => user.owner && "owner";
`;

/** Lines of `formwell/role-default` findings per file, from `deno lint --json` on `files`. */
async function lint(dir: string, files: Record<string, string>): Promise<Record<string, number[]>> {
  await Deno.writeTextFile(
    `${dir}/deno.json`,
    JSON.stringify({ lint: { plugins: [PLUGIN.href] } }),
  );
  await Deno.mkdir(`${dir}/lib`, { recursive: true });
  for (const [name, source] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/lib/${name}`, source);
  }
  return await run(dir);
}

async function run(cwd: string, args: string[] = []): Promise<Record<string, number[]>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["lint", "--json", ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.ok(text.trim(), new TextDecoder().decode(out.stderr));
  const found: Record<string, number[]> = {};
  for (const d of JSON.parse(text).diagnostics) {
    if (d.code !== RULE) continue;
    const file = d.filename.split("/").slice(-2).join("/");
    (found[file] ??= []).push(d.range.start.line);
  }
  return found;
}

Deno.test("lint - formwell/role-default", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-lint-" });
  try {
    const found = await lint(dir, { "bad.ts": BAD, "good.ts": GOOD });
    await t.step("flags every role assumed where none is given", () => {
      const marked = BAD.split("\n").flatMap((l, i) => l.includes("// flagged") ? [i + 1] : []);
      assert.equal(marked.length, 4);
      assert.deepEqual(found["lib/bad.ts"], marked);
    });
    await t.step("passes named roles, other defaults and a required role's default", () => {
      assert.equal(found["lib/good.ts"], undefined);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  await t.step("the project assumes no role in lib/ and routes/", async () => {
    assert.deepEqual(await run(PROJECT.pathname, ["lib/", "routes/", "cli.ts"]), {});
  });
});
