import assert from "node:assert/strict";
import { AppRouter } from "@/lib/http/router.ts";
import { testEnv } from "@/tests/helpers.ts";

/** The handlers a path runs, in order. */
function handlers(router: AppRouter<string>, method: string, path: string): string[] {
  return router.match(method, path)[0].map(([h]) => h);
}

Deno.test("app router - middleware on * runs on both sides, in the order it was added", () => {
  const r = new AppRouter<string>();
  r.add("ALL", "*", "first");
  r.add("GET", "/admin/forms/new", "new form");
  r.add("GET", "/admin/forms/:id", "form");
  r.add("POST", "/api/v1/submit/p/:id", "submit");
  r.add("ALL", "/*", "last");
  assert.deepEqual(handlers(r, "GET", "/admin/forms/new"), ["first", "new form", "form", "last"]);
  assert.deepEqual(handlers(r, "GET", "/admin/forms/f123"), ["first", "form", "last"]);
  assert.deepEqual(handlers(r, "POST", "/api/v1/submit/p/f123"), ["first", "submit", "last"]);
  // Only /admin and below are admin paths.
  assert.deepEqual(handlers(r, "GET", "/administrator"), ["first", "last"]);
});

Deno.test("app router - the app's routes outside /admin fit RegExpRouter", async () => {
  const env = await testEnv();
  try {
    // A RegExpRouter builds its matcher on the first match and throws on a route it cannot
    // hold; every request below would then fail.
    for (const path of ["/healthz", "/sdk/formwell.js.map", "/api/v1/forms/p/fNope/schema"]) {
      const res = await env.request(path);
      await res.body?.cancel();
      assert.ok(res.status < 500, `${path}: ${res.status}`);
    }
    const router = env.app.router as AppRouter<unknown>;
    assert.equal(router.site.name, "RegExpRouter");
    assert.equal((await env.request("/sdk/formwell.js.map")).status, 200);
    assert.equal((await env.request("/sdk/formwell.jsx")).status, 404);
  } finally {
    env.close();
  }
});
