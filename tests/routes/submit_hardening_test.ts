import assert from "node:assert/strict";
import {
  CONTACT_FORM,
  makeForm,
  makeWorkspace,
  postJson,
  recount,
  testEnv,
} from "@/tests/helpers.ts";

const RAISED = { RATE_LIMITS: JSON.stringify({ submit: 1000000, validate: 1000000 }) };

Deno.test("422 errors are capped at 50 items with a total, for submit and validate", async () => {
  const env = await testEnv(RAISED);
  const form = await makeForm(env.deps, await makeWorkspace(env.deps));
  const data: Record<string, string> = {};
  // ~250 KB of unknown keys: thousands of errors before the cap.
  for (let i = 0; i < 12_000; i++) data[`k${i}_${"x".repeat(8)}`] = "";
  const body = JSON.stringify({ data });
  assert.ok(body.length > 200_000 && body.length < 256 * 1024, String(body.length));
  for (const path of [`/api/v1/submit/p/${form.id}`, `/api/v1/forms/p/${form.id}/validate`]) {
    const res = await postJson(env, path, body);
    const text = await res.text();
    assert.equal(res.status, 422, path);
    const json = JSON.parse(text);
    assert.equal(json.code, "validation_failed");
    assert.equal(json.errors.length, 50, path);
    // 12,000 unknown keys plus the two required fields that are missing.
    assert.equal(json.errors_total, 12_002, path);
    assert.equal(json.errors_truncated, true, path);
    assert.ok(text.length < 20_000, `${path}: ${text.length} bytes`);
  }
  // Few errors: the array is whole and carries no truncation marks.
  const res = await postJson(env, `/api/v1/submit/p/${form.id}`, { data: { name: "A" } });
  const json = await res.json();
  assert.equal(res.status, 422);
  assert.equal(json.errors.length, 1);
  assert.equal(json.errors_total, undefined);
  assert.equal(json.errors_truncated, undefined);
  assert.equal(await recount(env.deps, form.id), 0);
  env.close();
});

Deno.test("data keys __proto__, constructor, prototype are unknown fields in JSON too", async () => {
  const env = await testEnv(RAISED);
  const form = await makeForm(env.deps, await makeWorkspace(env.deps));
  const ok = '"name": "Al", "email": "al@example.com"';
  for (const key of ["__proto__", "constructor", "prototype"]) {
    const raw = `{"data": {${ok}, "${key}": {"admin": true}}}`;
    for (const path of [`/api/v1/submit/p/${form.id}`, `/api/v1/forms/p/${form.id}/validate`]) {
      const res = await postJson(env, path, raw);
      const json = await res.json();
      assert.equal(res.status, 422, `${key} ${path}`);
      assert.deepEqual(
        json.errors.map((e: { field: string; type: string }) => [e.field, e.type]),
        [[key, "unknown_field"]],
      );
    }
    // The form post answers the same.
    const post = await env.request(`/api/v1/submit/p/${form.id}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: `name=Al&email=al%40example.com&${encodeURIComponent(key)}=1`,
    });
    const postJsonBody = await post.json();
    assert.equal(post.status, 422, `form post ${key}`);
    assert.equal(postJsonBody.errors[0].type, "unknown_field");
  }
  assert.equal(await recount(env.deps, form.id), 0);
  env.close();
});

Deno.test("a field named like an Object.prototype member is read only from own keys", async () => {
  const env = await testEnv(RAISED);
  const form = await makeForm(env.deps, await makeWorkspace(env.deps), {
    ...CONTACT_FORM,
    fields: [
      ...CONTACT_FORM.fields ?? [],
      { id: "fld_ctor", name: "constructor", type: "text" },
      { id: "fld_str", name: "toString", type: "text" },
    ],
  });
  const res = await postJson(env, `/api/v1/submit/p/${form.id}`, {
    data: { name: "Al", email: "al@example.com", toString: "hi" },
  });
  assert.equal(res.status, 201, JSON.stringify(await res.clone().json()));
  assert.equal(await recount(env.deps, form.id), 1);
  env.close();
});
