/**
 * The OpenAPI document stays true: it validates as OpenAPI 3.1, every `/api/v1` route the
 * app registers is in it, every operation is described with a curl example, and the
 * answers of the main API calls match the schemas documented for their status.
 */
import assert from "node:assert/strict";
import { validate } from "@readme/openapi-parser";
import { assertDocumented } from "@/tests/api_contract.ts";
import { page, setup, signIn } from "@/tests/admin_support.ts";
import { makeForm, makeKey, makeWorkspace, type TestEnv, testEnv } from "@/tests/helpers.ts";

type Doc = { paths: Record<string, Record<string, Record<string, unknown>>> };

async function documentOf(env: TestEnv): Promise<Doc> {
  const res = await env.request("/api/v1/openapi.json");
  assert.equal(res.status, 200);
  return await res.json();
}

Deno.test("openapi - the document is valid OpenAPI 3.1 and describes every operation", async () => {
  const env = await testEnv({ BASE_URL: "https://forms.example.com" });
  try {
    const doc = await documentOf(env) as Doc & Record<string, unknown>;
    assert.equal(doc.openapi, "3.1.0");
    const result = await validate(
      structuredClone(doc) as unknown as Parameters<typeof validate>[0],
    );
    assert.ok(result.valid, JSON.stringify(result));
    assert.deepEqual(doc.servers, [{ url: "https://forms.example.com" }]);
    const schemes = (doc.components as Record<string, Record<string, unknown>>).securitySchemes;
    assert.deepEqual(schemes.bearerAuth, {
      ...schemes.bearerAuth as object,
      type: "http",
      scheme: "bearer",
    });
    const operationIds = new Set<unknown>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        assert.match(String(op.operationId), /^[a-z][A-Za-z]+$/, `${where}: operationId`);
        assert.ok(!operationIds.has(op.operationId), `${where}: ${op.operationId} twice`);
        operationIds.add(op.operationId);
        const security = path.startsWith("/api/v1/server/")
          ? [{ bearerAuth: [] }]
          : path === "/api/v1/submit/p/{id}"
          ? [{}, { bearerAuth: [] }]
          : path === "/api/v1/uploads/{form}/{file}"
          ? [{ storageToken: [] }]
          : path.startsWith("/api/v1/forms/p/{id}/drafts/{draft_id}")
          ? [{ resumeToken: [] }]
          : [];
        assert.deepEqual(op.security, security, `${where}: security`);
        assert.ok(typeof op.summary === "string" && op.summary, `${where}: summary`);
        assert.ok(typeof op.description === "string" && op.description, `${where}: description`);
        const samples = op["x-codeSamples"] as { source: string }[];
        assert.match(samples[0].source, /^curl -X [A-Z]+ "\$FORMWELL_URL\/api\/v1\//, where);
        assert.ok((op.description as string).includes(samples[0].source), `${where}: shown`);
        if (path.startsWith("/api/v1/server/")) {
          assert.match(samples[0].source, /Bearer \$FORMWELL_API_KEY/, where);
        }
      }
    }
    // Cached: the same document object answers every time.
    assert.equal(JSON.stringify(await documentOf(env)), JSON.stringify(doc));
  } finally {
    env.close();
  }
});

Deno.test("openapi - every /api/v1 route the app registers is documented", async () => {
  const env = await testEnv();
  try {
    const doc = await documentOf(env);
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)
      ),
    );
    const registered = new Set(
      env.app.routes
        .filter((r) => r.path.startsWith("/api/v1/") && r.method !== "ALL")
        .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`),
    );
    assert.ok(registered.size >= 30, `only ${registered.size} routes found`);
    const missing = [...registered].filter((r) => !documented.has(r));
    assert.deepEqual(missing, [], "routes without a definition in the document");
    const stale = [...documented].filter((r) => !registered.has(r));
    assert.deepEqual(stale, [], "documented routes the app does not serve");
  } finally {
    env.close();
  }
});

const FILE_FORM = {
  name: "Apply",
  fields: [
    { id: "fld_name", name: "name", type: "text" as const, required: true },
    { id: "fld_email", name: "email", type: "email" as const, required: true },
    { id: "fld_cv", name: "cv", type: "file" as const, allowedTypes: ["application/pdf"] },
  ],
};

Deno.test("openapi - the answers of the main API calls match their documented schemas", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "business");
    const form = await makeForm(env.deps, ws, FILE_FORM);
    const live = await makeKey(env.deps, ws, { scopes: ["read", "admin"] });
    const testKey = await makeKey(env.deps, ws, { type: "test", scopes: ["read", "admin"] });
    const seen = new Map<string, number>();
    const call = async (
      method: string,
      path: string,
      opts: { body?: unknown; key?: string; type?: string; status: number },
    ) => {
      const headers: Record<string, string> = {};
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      if (opts.body !== undefined) headers["content-type"] = opts.type ?? "application/json";
      const body = opts.body === undefined
        ? undefined
        : typeof opts.body === "string"
        ? opts.body
        : JSON.stringify(opts.body);
      const res = await env.request(`/api/v1${path}`, { method, headers, body });
      assert.equal(res.status, opts.status, `${method} ${path}: ${await res.clone().text()}`);
      const out = await assertDocumented(env.deps, method, `/api/v1${path}`, res);
      seen.set(`${method} ${path}`, res.status);
      // deno-lint-ignore no-explicit-any
      return out as Record<string, any>;
    };
    const id = form.id;
    const good = { data: { name: "Ada", email: "ada@example.com" } };

    await call("GET", `/forms/p/${id}`, { status: 200 });
    await call("GET", "/forms/p/fNope000000000", { status: 404 });
    await call("GET", `/forms/p/${id}/types.ts`, { status: 200 });
    await call("GET", `/forms/p/${id}/altcha-challenge`, { status: 404 });
    await call("POST", `/forms/p/${id}/validate`, { body: good, status: 200 });
    await call("POST", `/forms/p/${id}/validate`, { body: { data: { name: "" } }, status: 422 });
    await call("POST", `/forms/p/${id}/validate`, { body: "{nope", status: 400 });
    await call("POST", `/forms/p/${id}/validate`, { body: { data: {}, x: 1 }, status: 400 });
    await call("POST", `/forms/p/${id}/validate`, { body: "a=b", type: "text/plain", status: 415 });
    const created = await call("POST", `/submit/p/${id}`, { body: good, status: 201 });
    await call("POST", `/submit/p/${id}`, { body: { data: { email: "x" } }, status: 422 });
    await call("POST", `/submit/p/${id}`, { body: { nope: 1 }, status: 400 });
    await call("POST", `/submit/p/${id}`, {
      body: { ...good, schema_version: 99 },
      status: 409,
    });
    await call("POST", `/forms/p/${id}/events`, { body: { type: "view" }, status: 202 });
    await call("POST", `/forms/p/${id}/events`, { body: { type: "click" }, status: 400 });
    await call("POST", `/forms/p/${id}/upload-url`, {
      body: { fieldId: "cv", fileName: "cv.pdf", contentType: "application/pdf", sizeBytes: 10 },
      status: 200,
    });
    await call("POST", `/forms/p/${id}/upload-url`, {
      body: { fieldId: "nope", fileName: "a.pdf", contentType: "application/pdf", sizeBytes: 1 },
      status: 422,
    });
    await call("GET", "/openapi.json", { status: 200 });

    await call("GET", "/server/forms", { status: 401 });
    await call("GET", "/server/forms", { key: live, status: 200 });
    await call("GET", "/server/forms?limit=0", { key: live, status: 400 });
    await call("GET", `/server/forms/${id}`, { key: live, status: 200 });
    await call("GET", "/server/forms/fNope000000000", { key: live, status: 404 });
    await call("GET", `/server/forms/${id}/submissions`, { key: live, status: 200 });
    await call("GET", `/server/forms/${id}/submissions/${created.submission_id}`, {
      key: live,
      status: 200,
    });
    await call("GET", `/server/forms/${id}/analytics`, { key: live, status: 200 });
    await call("GET", `/server/forms/${id}/files/download?path=${id}/nope`, {
      key: live,
      status: 404,
    });
    await call("DELETE", `/server/forms/${id}/submissions`, {
      key: live,
      body: { ids: [] },
      status: 400,
    });
    await call("DELETE", `/server/forms/${id}/submissions`, {
      key: live,
      body: { ids: [created.submission_id, "sub_nope"] },
      status: 200,
    });

    const hook = await call("POST", "/server/webhooks", {
      key: live,
      body: { url: "https://example.com/hook" },
      status: 201,
    });
    const wid = hook.webhook.id;
    await call("POST", "/server/webhooks", { key: live, body: { url: 5 }, status: 400 });
    await call("GET", "/server/webhooks", { key: live, status: 200 });
    await call("GET", `/server/webhooks/${wid}`, { key: live, status: 200 });
    await call("GET", `/server/webhooks/${wid}`, { key: testKey, status: 404 });
    await call("PATCH", `/server/webhooks/${wid}`, {
      key: live,
      body: { enabled: false },
      status: 200,
    });
    await call("POST", `/server/webhooks/${wid}/rotate`, { key: live, status: 200 });
    await call("GET", `/server/webhooks/${wid}/deliveries`, { key: live, status: 200 });
    await call("POST", `/server/webhooks/${wid}/deliveries/dlv_nope/resend`, {
      key: live,
      status: 404,
    });
    await call("DELETE", `/server/webhooks/${wid}`, { key: live, status: 200 });

    await call("GET", "/server/privacy/export?email=ada@example.com", { key: live, status: 200 });
    await call("GET", "/server/privacy/export", { key: live, status: 400 });
    const job = await call("POST", "/server/privacy/erase", {
      key: live,
      body: { email: "ada@example.com" },
      status: 202,
    });
    await call("GET", `/server/privacy/jobs/${job.job.id}`, { key: live, status: 200 });
    await call("GET", "/server/audit", { key: live, status: 200 });
    await call("GET", "/server/audit", { key: testKey, status: 403 });
    await call("GET", "/server/events", { key: live, status: 200 });
    await call("GET", "/server/events?types=nope", { key: live, status: 400 });
    assert.ok(seen.size >= 30, `${seen.size} calls`);
  } finally {
    env.close();
  }
});

Deno.test("openapi - the Keys page links the reference and shows a request with a placeholder key", async () => {
  const env = await testEnv();
  try {
    const { owner } = await setup(env);
    const cookie = await signIn(env, owner.email);
    const { res, html } = await page(env, cookie, "/admin/keys");
    assert.equal(res.status, 200);
    assert.match(html, /<a href="\/docs\/api">API reference<\/a>/);
    assert.match(html, /curl http:\/\/localhost\/api\/v1\/server\/forms/);
    assert.match(html, /Bearer fw_live_YOUR_KEY/);
    const docs = await env.request("/docs/api");
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /\/docs\/api\/assets\/swagger-ui-bundle\.js/);
  } finally {
    env.close();
  }
});
