/**
 * Admin pages and who may use them: every page is listed here with the access it declares
 * (`export const access`), so a change of access is a visible diff; the access guard
 * refuses, before any page runs, everyone the declaration leaves out; a page without an
 * access cannot be mounted.
 * @module
 */
import assert from "node:assert/strict";
import { atLeast } from "@/lib/admin/members.ts";
import { createUser } from "@/lib/admin/users.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Role } from "@/lib/schemas.ts";
import { adminRoutes } from "@/routes/admin/mod.ts";
import { allow, type PageEntry } from "@/routes/admin/_access.ts";
import { PAGES } from "@/routes/admin/_routes.gen.ts";
import { member } from "@/tests/account_support.ts";
import { page, PASSWORD, post, signIn } from "@/tests/admin_support.ts";
import { contactData, makeForm, makeWorkspace, postJson, testEnv } from "@/tests/helpers.ts";

/** Every admin page (its URL under /admin) and its access, as the page declares it. */
const ACCESS: Record<string, string> = {
  "/": "signed in: GET",
  "/account": "signed in: GET, POST",
  "/audit": "workspace: GET admin",
  "/forms": "signed in: GET",
  "/forms/new": "workspace: GET admin, POST admin",
  "/forms/:id": "form: GET viewer, POST admin",
  "/forms/:id/delete": "form: GET admin, POST admin",
  "/forms/:id/drafts": "form: GET viewer, POST admin",
  "/forms/:id/edit": "form: GET admin, POST admin",
  "/forms/:id/export.csv": "form: GET admin",
  "/forms/:id/export.json": "form: GET admin",
  "/forms/:id/file": "form: GET viewer",
  "/forms/:id/import": "form: GET admin, POST admin; uploads",
  "/forms/:id/integrations": "form: GET admin, POST admin",
  "/forms/:id/submissions": "form: GET viewer, POST admin",
  "/forms/:id/submissions/:sid": "form: GET viewer, POST admin; confirm=delete admin",
  "/invite/:token": "public: GET, POST",
  "/keys": "workspace: GET admin, POST admin",
  "/keys/:kid/revoke": "workspace: GET admin, POST admin",
  "/login": "public: GET, POST",
  "/logout": "signed in: POST",
  "/members": "workspace: GET viewer, POST owner",
  "/outbox": "workspace: GET viewer",
  "/privacy": "workspace: GET admin, POST admin",
  "/reset": "public: GET, POST",
  "/reset/:token": "public: GET, POST",
  "/switch": "signed in: POST",
  "/system": "instance owner (see the system status): GET, POST",
  "/webhooks": "workspace: GET admin, POST admin",
  "/webhooks/:wid": "workspace: GET admin, POST admin",
  "/workspaces": "instance owner (manage workspaces): GET, POST",
};

const METHODS = ["GET", "POST"] as const;

/** A page's declared access in the words of {@linkcode ACCESS}. */
function describe(entry: PageEntry): string {
  const a = entry.access;
  if (!a) return "none";
  const methods = METHODS.filter((m) => entry.handler[m]);
  const extra = [
    ...("views" in a ? Object.entries(a.views ?? {}).map(([v, r]) => `${v} ${r}`) : []),
    ...(a.uploads ? ["uploads"] : []),
  ];
  const head = a.kind === "workspace" || a.kind === "form"
    ? `${a.kind}: ${methods.map((m) => `${m} ${a.roles[m]}`).join(", ")}`
    : `${{ public: "public", signed_in: "signed in", instance_owner: "instance owner" }[a.kind]}${
      a.kind === "instance_owner" ? ` (${a.refusal})` : ""
    }: ${methods.join(", ")}`;
  return [head, ...extra].join("; ");
}

Deno.test("admin access - every page is listed with the access it declares", () => {
  assert.deepEqual(Object.fromEntries(PAGES.map((p) => [p.pattern, describe(p)])), ACCESS);
});

Deno.test("admin access - a page without a declared access cannot be mounted", async () => {
  const env = await testEnv();
  try {
    const GET = () => new Response("served");
    const POST = () => new Response("posted");
    const cases: [Partial<PageEntry>, RegExp][] = [
      [{ access: undefined, handler: { GET } }, /x\.tsx cannot be mounted: it declares no access/],
      [{ access: allow.workspace({ GET: "viewer" }), handler: { GET, POST } }, /no role for POST/],
      [{ access: allow.form({ GET: "admin", POST: "admin" }), handler: { GET } }, /never answered/],
      [{ access: allow.form({ GET: "viewer" }), pattern: "/x", handler: { GET } }, /needs :id/],
      [{ access: { kind: "everyone" } as never, handler: { GET } }, /kind everyone is unknown/],
      [
        { access: allow.form({ GET: "viewer" }, { views: { confirm: "admin" } as never }) },
        /view confirm is not name=value/,
      ],
    ];
    for (const [entry, refusal] of cases) {
      const page = { pattern: "/x/:id", file: "x.tsx", handler: { GET }, ...entry } as PageEntry;
      assert.throws(() => adminRoutes(env.deps, [...PAGES, page]), refusal);
    }
    // The same page with its access declared mounts and is served behind the guard.
    const ok = { pattern: "/x", file: "x.tsx", access: allow.public(), handler: { GET } };
    const res = await adminRoutes(env.deps, [ok]).request("http://localhost/x");
    assert.equal(await res.text(), "served");
  } finally {
    env.close();
  }
});

/** Each instance-owner page: its heading, and what its refusal says to anyone else. */
const INSTANCE_PAGES: Record<string, { title: string; refusal: string }> = {
  "/workspaces": { title: "Workspaces", refusal: "Only an instance owner can manage workspaces." },
  "/system": { title: "System", refusal: "Only an instance owner can see the system status." },
};

Deno.test("admin access - every page refuses, before it runs, whom its access leaves out", async (t) => {
  const env = await testEnv({ RATE_LIMITS: '{"login":1000}' });
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    const form = await makeForm(env.deps, ws);
    const sent = await postJson(env, `/api/v1/submit/p/${form.id}`, contactData(1));
    const sid = (await sent.json()).submission_id as string;
    await createUser(env.deps, {
      email: "root@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "owner",
      owner: true,
    });
    await member(env, ws, "owner@example.com", "owner");
    await member(env, ws, "admin@example.com", "admin");
    await member(env, ws, "viewer@example.com", "viewer");
    // A member whose stored role is missing: roleIn gives no role, so no page grants one.
    const bare = await member(env, ws, "bare@example.com", "viewer");
    const { [ws.id]: _gone, ...roles } = bare.roles ?? {};
    await env.deps.kv.set(keys.user(bare.id), { ...bare, roles });
    const other = await makeWorkspace(env.deps, "starter");
    await member(env, other, "stranger@example.com", "owner");

    const cookies: Record<string, string> = {};
    const csrf: Record<string, string> = {};
    for (const who of ["root", "owner", "admin", "viewer", "bare", "stranger"]) {
      cookies[who] = await signIn(env, `${who}@example.com`);
      csrf[who] = (await page(env, cookies[who], "/admin/account")).csrf;
    }
    const params: Record<string, string> = {
      id: form.id,
      sid,
      kid: "key_01JAAAAAAAAAAAAAAAAAAAAAAA",
      wid: "whk_01JAAAAAAAAAAAAAAAAAAAAAAA",
      token: "A".repeat(43),
    };
    const pathOf = (p: PageEntry) =>
      `/admin${p.pattern.replace(/:(\w+)/g, (_, n: string) => params[n])}`.replace(/\/$/, "");
    const send = (who: string | null, method: "GET" | "POST", path: string) =>
      who === null
        ? env.request(path, { method, headers: { "content-type": FORM } })
        : method === "GET"
        ? env.request(path, { headers: { cookie: cookies[who] } })
        : post(env, cookies[who], path, { _csrf: csrf[who], action: "none" });
    const FORM = "application/x-www-form-urlencoded";

    await t.step("without a session: the sign-in page, except on public pages", async () => {
      for (const p of PAGES) {
        for (const m of METHODS.filter((m) => p.handler[m])) {
          const res = await send(null, m, pathOf(p));
          await res.body?.cancel();
          const toLogin = res.status === 303 &&
            (res.headers.get("location") ?? "").startsWith("/admin/login");
          assert.equal(toLogin, p.access?.kind !== "public", `${m} ${p.pattern}: ${res.status}`);
        }
      }
    });

    await t.step("a role below a page's: refused with the reason, for every page", async () => {
      let refused = 0;
      for (const p of PAGES) {
        const a = p.access!;
        if (a.kind !== "workspace" && a.kind !== "form") continue;
        for (const m of METHODS.filter((m) => p.handler[m])) {
          for (const who of ["viewer", "admin"] as Role[]) {
            if (atLeast(who, a.roles[m]!)) continue;
            const res = await send(who, m, pathOf(p));
            const html = await res.text();
            assert.equal(res.status, 403, `${who} ${m} ${p.pattern}`);
            assert.match(html, /<h1>Your role does not allow this<\/h1>/);
            assert.ok(html.includes(`your role here is ${who}`), `${m} ${p.pattern} says why`);
            refused++;
          }
        }
      }
      assert.ok(refused >= 25, `${refused} refusals`);
      const confirm = `/admin/forms/${form.id}/submissions/${sid}?confirm=delete`;
      const res = await send("viewer", "GET", confirm);
      assert.equal(res.status, 403, await res.text());
    });

    await t.step("nothing a refused request sent took effect", async () => {
      const stored = await env.deps.kv.get<{ status: string }>(keys.submission(form.id, sid));
      assert.equal(stored.value?.status, "completed");
      const shown = await page(env, cookies.owner, `/admin/forms/${form.id}`);
      assert.equal(shown.res.status, 200);
    });

    await t.step("no stored role, or another workspace: no workspace or form page", async () => {
      for (const p of PAGES) {
        const a = p.access!;
        if (a.kind !== "workspace" && a.kind !== "form") continue;
        for (const who of ["bare", "stranger"]) {
          if (who === "stranger" && a.kind === "workspace") continue; // their own workspace
          const res = await send(who, "GET" in p.handler ? "GET" : "POST", pathOf(p));
          await res.body?.cancel();
          assert.equal(res.status, 404, `${who} ${p.pattern}`);
        }
      }
      const forms = await page(env, cookies.bare, "/admin/forms");
      assert.match(forms.html, /Ask an instance owner to add you to a workspace/);
    });

    await t.step("instance-owner pages: refused to a workspace owner, served to one", async () => {
      const paths = PAGES.filter((p) => p.access?.kind === "instance_owner").map((p) => p.pattern);
      assert.deepEqual(paths.sort(), Object.keys(INSTANCE_PAGES).sort());
      for (const path of paths) {
        for (const m of METHODS) {
          const res = await send("owner", m, `/admin${path}`);
          const html = await res.text();
          assert.equal(res.status, 403, `${m} ${path}: ${html}`);
          assert.match(html, /<h1>Your role does not allow this<\/h1>/);
          assert.ok(html.includes(INSTANCE_PAGES[path].refusal), `${path} says why`);
        }
        const shown = await page(env, cookies.root, `/admin${path}`);
        assert.equal(shown.res.status, 200, `${path} is an instance owner's page`);
        assert.ok(shown.html.includes(`<h1>${INSTANCE_PAGES[path].title}</h1>`), `${path} shown`);
        // Past the guard, the page's own answer: an unknown action is a 400.
        const res = await send("root", "POST", `/admin${path}`);
        assert.equal(res.status, 400, `${path}: ${await res.text()}`);
      }
    });
  } finally {
    env.close();
  }
});
