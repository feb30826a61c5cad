/**
 * The admin's route table (routes/admin/mod.ts `PAGES`) against the file system: every
 * page is served at the URL its file name says (`forms/[id]/edit.tsx` is
 * `/forms/:id/edit`, `index` is the folder), every page file is mounted, and each page's
 * least role per method is the one listed here, so a change of access shows in review. The
 * instance-owner pages are tried through the real app: others are refused, owners served.
 * @module
 */
import assert from "node:assert/strict";
import { createUser } from "@/lib/admin/users.ts";
import { testEnv } from "@/tests/helpers.ts";
import { page, PASSWORD, post, setup, signIn } from "@/tests/admin_support.ts";

const ADMIN = new URL("../../routes/admin/", import.meta.url);
const MOD = await Deno.readTextFile(new URL("mod.ts", ADMIN));

/**
 * The least role of each page and method (GET viewer, POST admin unless the table says), or
 * "instance owner" for a page that admits instance owners only.
 */
const ROLES: Record<string, { GET: string; POST: string }> = {
  "/": { GET: "viewer", POST: "admin" },
  "/login": { GET: "viewer", POST: "admin" },
  "/logout": { GET: "viewer", POST: "viewer" },
  "/switch": { GET: "viewer", POST: "viewer" },
  "/workspaces": { GET: "instance owner", POST: "instance owner" },
  "/forms": { GET: "viewer", POST: "admin" },
  "/forms/new": { GET: "admin", POST: "admin" },
  "/forms/:id": { GET: "viewer", POST: "admin" },
  "/forms/:id/edit": { GET: "admin", POST: "admin" },
  "/forms/:id/delete": { GET: "admin", POST: "admin" },
  "/forms/:id/integrations": { GET: "admin", POST: "admin" },
  "/forms/:id/drafts": { GET: "viewer", POST: "admin" },
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
  "/system": { GET: "instance owner", POST: "instance owner" },
};

/** Each instance-owner page: its heading, and what its refusal says to anyone else. */
const INSTANCE_PAGES: Record<string, { title: string; refusal: string }> = {
  "/workspaces": { title: "Workspaces", refusal: "Only an instance owner can manage workspaces." },
  "/system": { title: "System", refusal: "Only an instance owner can see the system status." },
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

/**
 * The PAGES table as written: path, module name, the roles it states, and the refusal's
 * ending of an instance-owner page.
 */
function pages(): { path: string; module: string; access: Record<string, string> }[] {
  const table = MOD.slice(
    MOD.indexOf("const PAGES"),
    MOD.indexOf("];", MOD.indexOf("const PAGES")),
  );
  return [...table.matchAll(/\["([^"]+)", mount\((\w+)(?:, \{([^}]*)\})?\)\]/g)].map((m) => {
    const access = m[3] ?? "";
    const instance = /instanceOwner: "([^"]+)"/.exec(access);
    return {
      path: m[1],
      module: m[2],
      access: instance
        ? { GET: "instance owner", POST: "instance owner", refusal: instance[1] }
        : Object.fromEntries(
          [...access.matchAll(/(GET|POST): "(\w+)"/g)].map((a) => [a[1], a[2]]),
        ),
    };
  });
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
    table.map(({ path, access: { GET = "viewer", POST = "admin" } }) => [path, { GET, POST }]),
  );
  assert.deepEqual(stated, ROLES);
  const refusals = Object.fromEntries(
    table.filter((p) => p.access.refusal).map((p) => [
      p.path,
      `Only an instance owner can ${p.access.refusal}.`,
    ]),
  );
  const listed = Object.entries(INSTANCE_PAGES).map(([path, { refusal }]) => [path, refusal]);
  assert.deepEqual(refusals, Object.fromEntries(listed));
});

Deno.test("admin routes - instance-owner pages refuse everyone else, before the page runs", async () => {
  const env = await testEnv();
  try {
    const { ws } = await setup(env);
    // The strongest workspace role is still no instance owner.
    await createUser(env.deps, {
      email: "ws-owner@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
    });
    const member = await signIn(env, "ws-owner@example.com");
    const owner = await signIn(env, "owner@example.com");
    const { csrf } = await page(env, member, "/admin/forms");
    const paths = Object.keys(ROLES).filter((p) => ROLES[p].GET === "instance owner");
    assert.deepEqual(paths, Object.keys(INSTANCE_PAGES));
    for (const path of paths) {
      const refused = [
        await env.request(`/admin${path}`, { headers: { cookie: member } }),
        await post(env, member, `/admin${path}`, { _csrf: csrf, action: "none" }),
      ];
      for (const res of refused) {
        const html = await res.text();
        assert.equal(res.status, 403, `${path}: ${html}`);
        assert.match(html, /<h1>Your role does not allow this<\/h1>/);
        assert.ok(html.includes(INSTANCE_PAGES[path].refusal), `${path} says why`);
      }
      const shown = await page(env, owner, `/admin${path}`);
      assert.equal(shown.res.status, 200, `${path} is an owner's page`);
      assert.ok(shown.html.includes(`<h1>${INSTANCE_PAGES[path].title}</h1>`), `${path} shown`);
      // Past the gate, the page's own answer: an unknown action is a 400.
      const sent = await post(env, owner, `/admin${path}`, { _csrf: shown.csrf, action: "none" });
      assert.equal(sent.status, 400, `${path}: ${await sent.text()}`);
    }
  } finally {
    env.close();
  }
});
