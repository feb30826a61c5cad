/**
 * File-system routing: a page's URL is its path under the routes folder (Fresh's rules),
 * and the checked-in manifests are what `deno task routes` writes now.
 * @module
 */
import assert from "node:assert/strict";
import { fileRoutes, manifests, patternOf } from "@/lib/ui/file_routes.ts";
import { PAGES } from "@/routes/admin/_routes.gen.ts";

Deno.test("file routes - a file's URL is its path", () => {
  const cases: [string, string | null][] = [
    ["index.ts", "/"],
    ["login.tsx", "/login"],
    ["forms/index.tsx", "/forms"],
    ["forms/[id]/edit.tsx", "/forms/:id/edit"],
    ["forms/[id]/submissions/[sid].tsx", "/forms/:id/submissions/:sid"],
    ["forms/[id]/export.csv.ts", "/forms/:id/export.csv"],
    ["(settings)/privacy.tsx", "/privacy"],
    // Not pages: helpers, layouts and middleware, the router, other files.
    ["_layout.tsx", null],
    ["_middleware.ts", null],
    ["forms/_editor.tsx", null],
    ["_shared/x.tsx", null],
    ["mod.ts", null],
    ["styles.css", null],
  ];
  for (const [file, pattern] of cases) assert.equal(patternOf(file), pattern, file);
  assert.throws(() => patternOf("docs/[...slug].tsx"), /whole \[name\] segments/);
  assert.throws(() => patternOf("a-[b].tsx"), /whole \[name\] segments/);
});

Deno.test("file routes - fixed segments first, one file a URL", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (const f of ["forms/[id].tsx", "forms/new.tsx", "forms/index.tsx", "_layout.tsx", "a.ts"]) {
      await Deno.mkdir(`${dir}/forms`, { recursive: true });
      await Deno.writeTextFile(`${dir}/${f}`, "");
    }
    const routes = await fileRoutes(new URL(`file://${dir}/`));
    assert.deepEqual(routes.map((r) => r.pattern), ["/a", "/forms", "/forms/new", "/forms/:id"]);
    await Deno.writeTextFile(`${dir}/forms.tsx`, "");
    await assert.rejects(() => fileRoutes(new URL(`file://${dir}/`)), /are both \/forms/);
    await Deno.remove(`${dir}/forms.tsx`);
    // Fresh would apply these to their folder: refused, never silently ignored.
    for (const f of ["forms/_layout.tsx", "_middleware.ts", "forms/_middleware.ts"]) {
      await Deno.writeTextFile(`${dir}/${f}`, "");
      await assert.rejects(() => fileRoutes(new URL(`file://${dir}/`)), /only the folder's own/);
      await Deno.remove(`${dir}/${f}`);
    }
    assert.equal((await fileRoutes(new URL(`file://${dir}/`))).length, 4);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("file routes - the checked-in manifests are current (deno task routes)", async () => {
  for (const { path, text } of await manifests()) {
    assert.equal(await Deno.readTextFile(path), text, `${path.pathname}: run deno task routes`);
  }
  for (const p of PAGES) assert.equal(patternOf(p.file), p.pattern, p.file);
  assert.ok(PAGES.length >= 30, `${PAGES.length} admin pages`);
});
