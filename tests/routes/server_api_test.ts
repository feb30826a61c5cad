import assert from "node:assert/strict";
import { createApiKey, listApiKeys, revokeApiKey } from "@/lib/keys/api_keys.ts";
import type { Scope } from "@/lib/schemas.ts";
import { seedSubmissions } from "@/bench/seed.ts";
import { updateWorkspace } from "@/lib/workspaces/workspaces.ts";
import { makeForm, makeWorkspace, type TestEnv, testEnv } from "@/tests/helpers.ts";

/** A valid-looking id of no submission (ULID alphabet, lower case). */
const NO_SUB = "sub_01jzzzzzzzzzzzzzzzzzzzzzzz";
const NO_FORM = "fZZZZZZZZZZZZ";

interface Route {
  name: string;
  method: "GET" | "DELETE";
  path: (form: string, sub: string) => string;
  scope: Scope;
  body?: (sub: string) => unknown;
  /** Status of a permitted call in the fixtures (default 200). */
  allowed?: number;
}

/** Every Server Data API route. */
const ROUTES: Route[] = [
  { name: "forms list", method: "GET", path: () => "/forms", scope: "read" },
  { name: "one form", method: "GET", path: (f) => `/forms/${f}`, scope: "read" },
  { name: "submissions", method: "GET", path: (f) => `/forms/${f}/submissions`, scope: "read" },
  {
    name: "one submission",
    method: "GET",
    path: (f, s) => `/forms/${f}/submissions/${s}`,
    scope: "read",
  },
  {
    name: "delete",
    method: "DELETE",
    path: (f) => `/forms/${f}/submissions`,
    scope: "admin",
    body: (s) => ({ ids: [s] }),
  },
  { name: "analytics", method: "GET", path: (f) => `/forms/${f}/analytics`, scope: "read" },
  {
    // Added by the uploads work; no file is attached here, so a permitted call is 404.
    name: "download",
    method: "GET",
    path: (f) => `/forms/${f}/files/download?path=files%2Fnone.pdf`,
    scope: "read",
    allowed: 404,
  },
];

function call(
  env: TestEnv,
  route: Route,
  form: string,
  sub: string,
  authorization?: string,
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  if (route.body) headers["content-type"] = "application/json";
  return env.request(`/api/v1/server${route.path(form, sub)}`, {
    method: route.method,
    headers,
    body: route.body ? JSON.stringify(route.body(sub)) : undefined,
  });
}

const SCOPE_SETS: Scope[][] = [
  ["submit"],
  ["read"],
  ["admin"],
  ["submit", "read"],
  ["submit", "admin"],
  ["read", "admin"],
  ["submit", "read", "admin"],
];

function grants(scopes: Scope[], needed: Scope): boolean {
  return scopes.includes(needed) || (needed === "read" && scopes.includes("admin"));
}

Deno.test("server api - scope x route matrix", async (t) => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "business");
    const form = await makeForm(env.deps, ws);
    const [liveSub] = await seedSubmissions(env.deps, form, 1);
    const [testSub] = await seedSubmissions(env.deps, form, 1, { mode: "test" });
    let unexpected2xx = 0;
    let calls = 0;

    await t.step("every scope set, live and test: 2xx exactly where the scope allows", async () => {
      for (const type of ["live", "test"] as const) {
        for (const scopes of SCOPE_SETS) {
          const { key } = await createApiKey(env.deps, {
            workspaceId: ws.id,
            name: `${type} ${scopes}`,
            type,
            scopes,
          });
          for (const route of ROUTES) {
            // Reads use this mode's submission; deletes an id that does not exist.
            const sub = route.method === "DELETE" ? NO_SUB : type === "live" ? liveSub : testSub;
            const res = await call(env, route, form.id, sub, `Bearer ${key}`);
            const body = await res.json();
            calls++;
            if (grants(scopes, route.scope)) {
              const allowed = route.allowed ?? 200;
              assert.equal(res.status, allowed, `${type} ${scopes} ${route.name}: ${body.error}`);
            } else {
              if (res.ok) unexpected2xx++;
              assert.equal(res.status, 403, `${type} ${scopes} ${route.name}`);
              assert.equal(body.code, "insufficient_scope");
            }
          }
        }
      }
    });

    await t.step("missing, malformed, fake and revoked keys: 401 on every route", async () => {
      const { id, key } = await createApiKey(env.deps, { workspaceId: ws.id, name: "doomed" });
      const res0 = await call(env, ROUTES[0], form.id, liveSub, `Bearer ${key}`);
      assert.equal(res0.status, 200);
      await res0.body?.cancel();
      await revokeApiKey(env.deps, id);
      const flipped = key.slice(0, -1) + (key.endsWith("A") ? "B" : "A");
      const cases: [string | undefined, string][] = [
        [undefined, "missing_api_key"],
        ["", "missing_api_key"],
        [`Bearer ${key}`, "invalid_api_key"],
        [`Bearer ${flipped}`, "invalid_api_key"],
        [`Basic ${key}`, "invalid_api_key"],
        ["Bearer fw_live_short", "invalid_api_key"],
        [key, "invalid_api_key"],
      ];
      for (const route of ROUTES) {
        for (const [header, code] of cases) {
          const res = await call(env, route, form.id, liveSub, header);
          const body = await res.json();
          calls++;
          if (res.ok) unexpected2xx++;
          assert.equal(res.status, 401, `${route.name} ${header?.slice(0, 12)}`);
          assert.equal(body.code, code);
          if (code === "invalid_api_key") assert.equal(body.error, "Invalid API key.");
        }
      }
    });

    await t.step("a workspace below Starter: 403 plan_required on every route", async () => {
      const low = await makeWorkspace(env.deps, "starter");
      const lowForm = await makeForm(env.deps, low);
      const { key } = await createApiKey(env.deps, {
        workspaceId: low.id,
        name: "all",
        scopes: ["submit", "read", "admin"],
      });
      await updateWorkspace(env.deps, low.id, { plan: "free" });
      for (const route of ROUTES) {
        const res = await call(env, route, lowForm.id, NO_SUB, `Bearer ${key}`);
        const body = await res.json();
        calls++;
        if (res.ok) unexpected2xx++;
        assert.equal(res.status, 403);
        assert.equal(body.code, "plan_required");
      }
    });

    await t.step("a suspended workspace's key is an invalid key", async () => {
      const sus = await makeWorkspace(env.deps, "pro");
      const susForm = await makeForm(env.deps, sus);
      const { key } = await createApiKey(env.deps, { workspaceId: sus.id, name: "k" });
      await updateWorkspace(env.deps, sus.id, { suspended: true });
      for (const route of ROUTES) {
        const res = await call(env, route, susForm.id, NO_SUB, `Bearer ${key}`);
        calls++;
        if (res.ok) unexpected2xx++;
        assert.equal(res.status, 401);
        await res.body?.cancel();
      }
    });

    await t.step(
      "over-limit keys after a downgrade keep working; creating more fails",
      async () => {
        const ws2 = await makeWorkspace(env.deps, "pro");
        const form2 = await makeForm(env.deps, ws2);
        const made = [];
        for (let i = 0; i < 3; i++) {
          made.push(
            await createApiKey(env.deps, {
              workspaceId: ws2.id,
              name: `k${i}`,
              scopes: ["read", "admin"],
            }),
          );
        }
        await updateWorkspace(env.deps, ws2.id, { plan: "starter" });
        const listed = await listApiKeys(env.deps, ws2.id);
        assert.deepEqual(listed.map((k) => k.over_limit), [false, false, true]);
        for (const route of ROUTES) {
          const res = await call(env, route, form2.id, NO_SUB, `Bearer ${made[2].key}`);
          const expected = route.name === "one submission" ? 404 : route.allowed ?? 200;
          assert.equal(res.status, expected, route.name);
          await res.body?.cancel();
        }
        await assert.rejects(
          createApiKey(env.deps, { workspaceId: ws2.id, name: "k3" }),
          (e: Error & { code?: string }) => e.code === "quota_exceeded",
        );
      },
    );

    assert.equal(unexpected2xx, 0);
    assert.equal(calls, 2 * 7 * ROUTES.length + 7 * ROUTES.length + 2 * ROUTES.length);
  } finally {
    env.close();
  }
});

Deno.test("server api - another workspace's ids are the same 404 as missing ones", async () => {
  const env = await testEnv();
  try {
    const a = await makeWorkspace(env.deps, "pro");
    const b = await makeWorkspace(env.deps, "pro");
    const formA = await makeForm(env.deps, a);
    const formB = await makeForm(env.deps, b, { name: "Secret B form", fields: [] });
    const [subA] = await seedSubmissions(env.deps, formA, 1);
    const [subB] = await seedSubmissions(env.deps, formB, 1, {
      fields: () => ({ name: "Bob B", email: "bob@b.example" }),
    });
    const { key } = await createApiKey(env.deps, {
      workspaceId: a.id,
      name: "admin",
      scopes: ["read", "admin"],
    });
    const { key: testKey } = await createApiKey(env.deps, {
      workspaceId: a.id,
      name: "test admin",
      type: "test",
      scopes: ["read", "admin"],
    });
    const snapshot = async (r: Response) => ({ status: r.status, body: await r.text() });
    let compared = 0;
    for (const route of ROUTES.slice(1)) {
      // (foreign form, any sub) vs (missing form, same sub)
      for (const sub of [subB, subA, NO_SUB]) {
        const foreign = await snapshot(await call(env, route, formB.id, sub, `Bearer ${key}`));
        const missing = await snapshot(await call(env, route, NO_FORM, sub, `Bearer ${key}`));
        assert.equal(foreign.status, 404, `${route.name} ${sub}`);
        assert.deepEqual(foreign, missing, route.name);
        assert.ok(!foreign.body.includes("Secret B") && !foreign.body.includes("bob@"));
        compared++;
      }
    }
    // Own form, foreign (or other-mode) submission id vs a missing id.
    const one = ROUTES.find((r) => r.name === "one submission")!;
    const missingSub = await snapshot(await call(env, one, formA.id, NO_SUB, `Bearer ${key}`));
    assert.equal(missingSub.status, 404);
    assert.deepEqual(
      await snapshot(await call(env, one, formA.id, subB, `Bearer ${key}`)),
      missingSub,
    );
    assert.deepEqual(
      await snapshot(await call(env, one, formA.id, subA, `Bearer ${testKey}`)),
      missingSub,
    );
    assert.deepEqual(
      await snapshot(await call(env, one, formA.id, "sub_%27%20OR%201", `Bearer ${key}`)),
      missingSub,
    );
    const del = ROUTES.find((r) => r.name === "delete")!;
    for (const [sub, k] of [[subB, key], [subA, testKey]] as const) {
      const res = await call(env, del, formA.id, sub, `Bearer ${k}`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { deleted: 0, not_found: [sub] });
    }
    // Nothing of B leaked into lists, and B's submission is still there.
    const list = await env.request("/api/v1/server/forms", {
      headers: { authorization: `Bearer ${key}` },
    });
    const forms = (await list.json()).forms as { public_id: string }[];
    assert.deepEqual(forms.map((f) => f.public_id), [formA.id]);
    const bSub = await env.deps.kv.get(["submissions", formB.id, subB]);
    assert.ok(bSub.value, "B's submission survived");
    assert.ok(compared >= 15);
  } finally {
    env.close();
  }
});

Deno.test("server api - rate limited per workspace and route", async () => {
  const env = await testEnv({ RATE_LIMITS: JSON.stringify({ workspace: 3 }) });
  try {
    const a = await makeWorkspace(env.deps, "pro");
    const b = await makeWorkspace(env.deps, "pro");
    const formA = await makeForm(env.deps, a);
    const keyA = (await createApiKey(env.deps, { workspaceId: a.id, name: "a" })).key;
    const keyA2 = (await createApiKey(env.deps, { workspaceId: a.id, name: "a2" })).key;
    const keyB = (await createApiKey(env.deps, { workspaceId: b.id, name: "b" })).key;
    const get = (path: string, key: string, ip: string) =>
      env.request(`/api/v1/server${path}`, { headers: { authorization: `Bearer ${key}` }, ip });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      // Different IPs and keys of the one workspace share its budget.
      const res = await get("/forms", i % 2 ? keyA : keyA2, `198.51.100.${i}`);
      statuses.push(res.status);
      await res.body?.cancel();
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    const other = await get(`/forms/${formA.id}`, keyA, "198.51.100.9");
    assert.equal(other.status, 200, "another route has its own budget");
    await other.body?.cancel();
    const res = await get("/forms", keyB, "198.51.100.1");
    assert.equal(res.status, 200, "another workspace has its own budget");
    await res.body?.cancel();
  } finally {
    env.close();
  }
});

Deno.test("server api - a JSON body without Content-Type is read as JSON; another type is 415", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws);
    const [id] = await seedSubmissions(env.deps, form, 1);
    const { key } = await createApiKey(env.deps, {
      workspaceId: ws.id,
      name: "k",
      type: "live",
      scopes: ["read", "admin"],
    });
    const send = (headers: Record<string, string>) =>
      env.request(`/api/v1/server/forms/${form.id}/submissions`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${key}`, ...headers },
        // Bytes, not a string: a string body would be labelled text/plain.
        body: new TextEncoder().encode(JSON.stringify({ ids: [id] })),
      });
    const plain = await send({ "content-type": "text/plain" });
    assert.equal(plain.status, 415);
    assert.equal((await plain.json()).code, "unsupported_media_type");
    const bare = await send({});
    assert.equal(bare.status, 200, await bare.clone().text());
    assert.deepEqual(await bare.json(), { deleted: 1, not_found: [] });
  } finally {
    env.close();
  }
});
