/**
 * The admin's route table (routes/admin/mod.ts `PAGES`) against the file system: every
 * page is served at the URL its file name says (`forms/[id]/edit.tsx` is
 * `/forms/:id/edit`, `index` is the folder), every page file is mounted, and each page's
 * least role per method is the one listed here, so a change of access shows in review.
 * @module
 */
import assert from "node:assert/strict";

const ADMIN = new URL("../../routes/admin/", import.meta.url);
const MOD = await Deno.readTextFile(new URL("mod.ts", ADMIN));

/** The least role of each page and method (GET viewer, POST admin unless the table says). */
const ROLES: Record<string, { GET: string; POST: string }> = {
  "/": { GET: "viewer", POST: "admin" },
  "/login": { GET: "viewer", POST: "admin" },
  "/logout": { GET: "viewer", POST: "viewer" },
  "/switch": { GET: "viewer", POST: "viewer" },
  "/workspaces": { GET: "viewer", POST: "admin" },
  "/forms": { GET: "viewer", POST: "admin" },
  "/forms/new": { GET: "admin", POST: "admin" },
  "/forms/:id": { GET: "viewer", POST: "admin" },
  "/forms/:id/edit": { GET: "admin", POST: "admin" },
  "/forms/:id/delete": { GET: "admin", POST: "admin" },
  "/forms/:id/integrations": { GET: "admin", POST: "admin" },
  "/forms/:id/submissions": { GET: "viewer", POST: "admin" },
  "/forms/:id/submissions/:sid": { GET: "viewer", POST: "admin" },
  "/forms/:id/export.csv": { GET: "admin", POST: "admin" },
  "/forms/:id/export.json": { GET: "admin", POST: "admin" },
  "/forms/:id/file": { GET: "viewer", POST: "admin" },
  "/forms/:id/import": { GET: "admin", POST: "admin" },
  "/keys": { GET: "admin", POST: "admin" },
  "/keys/:kid/revoke": { GET: "admin", POST: "admin" },
  "/members": { GET: "viewer", POST: "owner" },
  "/outbox": { GET: "viewer", POST: "admin" },
  "/webhooks": { GET: "admin", POST: "admin" },
  "/webhooks/:wid": { GET: "admin", POST: "admin" },
  "/account": { GET: "viewer", POST: "viewer" },
  "/invite/:token": { GET: "viewer", POST: "admin" },
  "/reset": { GET: "viewer", POST: "admin" },
  "/reset/:token": { GET: "viewer", POST: "admin" },
  "/privacy": { GET: "admin", POST: "admin" },
  "/audit": { GET: "admin", POST: "admin" },
  "/system": { GET: "viewer", POST: "admin" },
};

/** One URL path served by a file of another name: both exports come from one module. */
const ALIASES: Record<string, string> = {
  "/forms/:id/export.csv": "forms/[id]/export",
  "/forms/:id/export.json": "forms/[id]/export",
};

/** `import * as name from "..."` lines: module name to file (relative to routes/admin/). */
function imports(): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of MOD.matchAll(/import \* as (\w+) from "([^"]+)";/g)) {
    out.set(m[1], m[2].replace(/^@\/routes\/admin\//, "").replace(/^\.\//, ""));
  }
  return out;
}

/** The PAGES table as written: path, module name, and the roles it states. */
function pages(): { path: string; module: string; access: Record<string, string> }[] {
  const table = MOD.slice(
    MOD.indexOf("const PAGES"),
    MOD.indexOf("];", MOD.indexOf("const PAGES")),
  );
  return [...table.matchAll(/\["([^"]+)", mount\((\w+)(?:, \{([^}]*)\})?\)\]/g)].map((m) => ({
    path: m[1],
    module: m[2],
    access: Object.fromEntries(
      [...(m[3] ?? "").matchAll(/(GET|POST): "(\w+)"/g)].map((a) => [a[1], a[2]]),
    ),
  }));
}

/** The URL path a page file's name says: `[x]` is `:x`, `index` is its folder. */
function pathOfFile(file: string): string {
  const parts = file.replace(/\.tsx?$/, "").split("/").map((p) => p.replace(/^\[(\w+)\]$/, ":$1"));
  if (parts.at(-1) === "index") parts.pop();
  return "/" + parts.join("/");
}

/** Page files: .ts/.tsx under routes/admin/, not `_`-prefixed helpers, not mod.ts. */
async function pageFiles(dir = ADMIN, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.name.startsWith("_")) continue;
    if (e.isDirectory) {
      out.push(...await pageFiles(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`));
    } else if (/\.tsx?$/.test(e.name) && !(prefix === "" && e.name === "mod.ts")) {
      out.push(prefix + e.name);
    }
  }
  return out.sort();
}

Deno.test("admin routes - every page is served where its file name says", async () => {
  const mods = imports();
  const table = pages();
  assert.ok(table.length >= 25, `read ${table.length} pages from routes/admin/mod.ts`);
  for (const { path, module } of table) {
    const file = mods.get(module);
    assert.ok(file, `${path}: module ${module} is imported`);
    const alias = ALIASES[path];
    if (alias) assert.equal(file.replace(/\.tsx?$/, ""), alias, `${path} is served by ${file}`);
    else assert.equal(pathOfFile(file), path, `${path} is served by ${file}`);
  }
  const mounted = new Set(table.map((p) => mods.get(p.module)));
  for (const file of await pageFiles()) {
    assert.ok(mounted.has(file), `routes/admin/${file} is a page no route serves`);
  }
});

Deno.test("admin routes - each page's least role per method is the one listed", () => {
  const table = pages();
  const stated = Object.fromEntries(
    table.map((p) => [p.path, { GET: "viewer", POST: "admin", ...p.access }]),
  );
  assert.deepEqual(stated, ROLES);
});
