import assert from "node:assert/strict";
import { makeForm, makeWorkspace, recount, testEnv } from "@/tests/helpers.ts";

const RAISED = { RATE_LIMITS: JSON.stringify({ submit: 1000000, validate: 1000000 }) };

/** A corpus of malformed submit requests: [label, content-type, body]. */
function corpus(): [string, string | null, BodyInit | null][] {
  const deep = "[".repeat(5000) + "]".repeat(5000);
  const deepObj = '{"data":' + '{"a":'.repeat(100) + "1" + "}".repeat(100) + "}";
  const invalidUtf8 = new Uint8Array([0x7b, 0x22, 0x64, 0x22, 0x3a, 0xff, 0xfe, 0x7d]);
  return [
    ["empty body", "application/json", ""],
    ["not json", "application/json", "hello"],
    ["truncated", "application/json", '{"data": {"name": "x"'],
    ["array", "application/json", "[]"],
    ["null", "application/json", "null"],
    ["string", "application/json", '"data"'],
    ["missing data", "application/json", "{}"],
    ["data null", "application/json", '{"data": null}'],
    ["data array", "application/json", '{"data": []}'],
    ["data string", "application/json", '{"data": "x"}'],
    ["wrong field types", "application/json", '{"data": {"name": 5, "email": ["a"], "topic": {}}}'],
    ["unknown top-level key", "application/json", '{"data": {}, "evil": 1}'],
    ["metadata not object", "application/json", '{"data": {}, "metadata": 3}'],
    ["schema_version string", "application/json", '{"data": {}, "schema_version": "1"}'],
    ["captcha_token number", "application/json", '{"data": {}, "captcha_token": 1}'],
    ["deep array", "application/json", deep],
    ["deep object", "application/json", deepObj],
    ["huge string", "application/json", JSON.stringify({ data: { name: "x".repeat(300_000) } })],
    [
      "over stored limit",
      "application/json",
      JSON.stringify({
        data: { name: "Al", email: "a@b.co" },
        metadata: { a: "é".repeat(40_000) },
      }),
    ],
    [
      "two-byte metadata",
      "application/json",
      JSON.stringify({
        data: { name: "Al", email: "a@b.co" },
        metadata: { a: "a".repeat(40_000) + "中" },
      }),
    ],
    ["invalid utf-8", "application/json", invalidUtf8],
    [
      "lone surrogate escape",
      "application/json",
      '{"data": {"name": "\\ud800", "email": "a@b.co"}}',
    ],
    ["nul in key", "application/json", '{"data": {"na\\u0000me": "x"}}'],
    ["__proto__ key", "application/json", '{"data": {"__proto__": {"admin": true}}}'],
    ["text/plain", "text/plain", '{"data": {}}'],
    ["xml", "application/xml", "<data/>"],
    ["no content type", null, '{"data": {}}'],
    ["json with charset junk", "application/json; charset=bogus", "{"],
    ["multipart junk", "multipart/form-data; boundary=x", "--x\r\nnope"],
    ["urlencoded junk", "application/x-www-form-urlencoded", "%%%&&&=="],
  ];
}

Deno.test("bad input - malformed submit bodies get 4xx and store nothing", async () => {
  const env = await testEnv(RAISED);
  const form = await makeForm(env.deps, await makeWorkspace(env.deps));
  const statuses: Record<string, number> = {};
  for (const [label, type, body] of corpus()) {
    const headers: Record<string, string> = type ? { "content-type": type } : {};
    const res = await env.request(`/api/v1/submit/p/${form.id}`, { method: "POST", headers, body });
    const json = await res.json().catch(() => null);
    statuses[label] = res.status;
    assert.ok(res.status >= 400 && res.status < 500, `${label}: ${res.status}`);
    if (res.status < 300 || res.status >= 400) {
      assert.equal(typeof json?.error, "string", `${label}: error message`);
      assert.equal(typeof json?.code, "string", `${label}: error code`);
    }
  }
  assert.equal(await recount(env.deps, form.id), 0);
  assert.equal(statuses["huge string"], 413);
  assert.equal(statuses["over stored limit"], 413);
  assert.equal(statuses["two-byte metadata"], 413);
  assert.equal(statuses["text/plain"], 415);
  assert.equal(statuses["no content type"], 415);
  assert.equal(statuses["invalid utf-8"], 400);
  assert.equal(statuses["missing data"], 400);
  assert.equal(statuses["data array"], 400);
  assert.equal(statuses["deep array"], 400);
  env.close();
});

Deno.test("bad input - validate and schema endpoints answer 4xx", async () => {
  const env = await testEnv(RAISED);
  const form = await makeForm(env.deps, await makeWorkspace(env.deps));
  for (const [label, type, body] of corpus()) {
    const headers: Record<string, string> = type ? { "content-type": type } : {};
    const res = await env.request(`/api/v1/forms/p/${form.id}/validate`, {
      method: "POST",
      headers,
      body,
    });
    await res.body?.cancel();
    assert.ok(res.status >= 400 && res.status < 500, `${label}: ${res.status}`);
  }
  for (const id of ["%00", "..%2F..", "a".repeat(300), "%F0%9F%92%A9", "' OR 1=1"]) {
    const res = await env.request(`/api/v1/forms/p/${id}`);
    await res.body?.cancel();
    assert.equal(res.status, 404, id);
  }
  env.close();
});

Deno.test("http - request ids, health and JSON 404s", async (t) => {
  const env = await testEnv();
  await t.step(
    "every response carries X-Request-Id, a well-formed incoming one is kept",
    async () => {
      const health = await env.request("/healthz");
      assert.deepEqual(await health.json(), { ok: true });
      assert.match(health.headers.get("x-request-id") ?? "", /^req_[A-Za-z0-9]{20}$/);
      const kept = await env.request("/healthz", { headers: { "x-request-id": "trace-12345678" } });
      await kept.body?.cancel();
      assert.equal(kept.headers.get("x-request-id"), "trace-12345678");
      const replaced = await env.request("/healthz", { headers: { "x-request-id": "<script>" } });
      await replaced.body?.cancel();
      assert.notEqual(replaced.headers.get("x-request-id"), "<script>");
    },
  );
  await t.step("unknown routes are JSON 404s with a request id", async () => {
    const res = await env.request("/api/v1/nope");
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { error: "Not found.", code: "not_found" });
    assert.ok(res.headers.get("x-request-id"));
  });
  await t.step("schema response and ETag", async () => {
    const form = await makeForm(env.deps, await makeWorkspace(env.deps), {
      name: "C",
      fields: [{ name: "a", type: "text" }],
      captcha: { provider: "turnstile", siteKey: "site", secret: "top-secret" },
    });
    const res = await env.request(`/api/v1/forms/p/${form.id}`);
    const text = await res.text();
    assert.ok(!text.includes("top-secret"), "secret never returned");
    const body = JSON.parse(text);
    assert.deepEqual(body.captcha, { provider: "turnstile", siteKey: "site" });
    assert.equal(body.form.schema_version, 1);
    assert.equal(body.form.public_id, form.id);
    const etag = res.headers.get("etag")!;
    assert.match(etag, /^"v1-/);
    const cached = await env.request(`/api/v1/forms/p/${form.id}`, {
      headers: { "if-none-match": etag },
    });
    assert.equal(cached.status, 304);
  });
  env.close();
});
