/**
 * An id or path parameter longer than any id the service issues is a 404, never a 500
 * (a KV key that long is "Key too large"). The requests are generated from the routes the
 * app registers, so a new route with a parameter is covered without editing this test.
 */
import assert from "node:assert/strict";
import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import { page, post, setup, signIn } from "@/tests/admin_support.ts";
import { makeKey, makeWorkspace, testEnv } from "@/tests/helpers.ts";

/** Longer than KV's 2 KiB key limit, so a read with it would throw. */
const LONG = "a".repeat(3000);

Deno.test("long ids - every route with a path parameter answers 404 to an over-long one", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "business");
    const key = await makeKey(env.deps, ws, { scopes: ["read", "admin"] });
    const patterns = new Map<string, { method: string; path: string }>();
    for (const r of env.app.routes) {
      if (!r.path.includes("/:") || r.method === "ALL") continue;
      patterns.set(`${r.method} ${r.path}`, { method: r.method, path: r.path });
    }
    assert.ok(patterns.size >= 25, `only ${patterns.size} patterns`);
    const tried: string[] = [];
    for (const { method, path } of patterns.values()) {
      // A parameter with its own pattern (`:file{...}`) only matches its own shape.
      const url = path.replace(/:(\w+)(\{[^}]*\})?/g, LONG) +
        (path.endsWith("/files/download") ? "?path=x" : "");
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      const init: RequestInit = { method, headers };
      if (method !== "GET" && method !== "HEAD") {
        headers["content-type"] = "application/json";
        init.body = JSON.stringify({ data: {}, ids: ["x"], url: "https://example.com" });
      }
      const res = await env.request(url, init);
      const where = `${method} ${path}`;
      assert.equal(res.status, 404, `${where}: ${(await res.clone().text()).slice(0, 200)}`);
      const type = res.headers.get("content-type") ?? "";
      if (path.startsWith("/api/")) {
        const body = await res.json();
        assert.equal(body.code, "not_found", where);
      } else if (method === "POST" && path === "/f/:id") {
        // Formspree's endpoint answers a JSON post in Formspree's shape.
        assert.equal((await res.json()).errors[0].code, "FORM_NOT_FOUND", where);
      } else {
        await res.body?.cancel();
        if (
          !path.startsWith("/_") && !path.startsWith("/static") && !path.startsWith("/sdk") &&
          !path.startsWith("/docs")
        ) assert.match(type, /text\/html/, where);
      }
      tried.push(where);
    }
    for (const p of ["/admin/forms/:id", "/f/:id", "/api/v1/server/webhooks/:wid"]) {
      assert.ok(tried.some((t) => t.endsWith(` ${p}`)), `${p} not tried`);
    }
  } finally {
    env.close();
  }
});

Deno.test("long ids - ids posted to admin pages (members, webhooks, deliveries) are 404", async () => {
  const env = await testEnv();
  try {
    const { owner } = await setup(env);
    const cookie = await signIn(env, owner.email);
    const hook = await createWebhook(env.deps, owner.workspace_ids[0], {
      url: "https://example.com/hook",
    }, { actor: "cli" });
    const posts: [string, Record<string, string>][] = [
      ["/admin/members", { action: "remove", user_id: LONG }],
      ["/admin/members", { action: "role", user_id: LONG, role: "viewer" }],
      ["/admin/members", { action: "withdraw", email: `${LONG}@example.com` }],
      ["/admin/webhooks", { action: "delete", id: LONG }],
      ["/admin/webhooks", { action: "disable", id: LONG }],
      [`/admin/webhooks/${hook.id}`, { action: "resend", delivery_id: LONG }],
    ];
    for (const [path, fields] of posts) {
      const { csrf } = await page(env, cookie, "/admin/members");
      const res = await post(env, cookie, path, { ...fields, _csrf: csrf });
      const html = await res.text();
      assert.equal(res.status, 404, `${path} ${fields.action}: ${html.slice(0, 300)}`);
      assert.match(res.headers.get("content-type") ?? "", /text\/html/);
    }
  } finally {
    env.close();
  }
});
