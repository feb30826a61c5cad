import assert from "node:assert/strict";
import { readSubmission } from "@/lib/submissions/records.ts";
import type { FormDefinition } from "@/lib/schemas.ts";
import {
  CONTACT_FORM,
  makeForm,
  makeWorkspace,
  recount,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { FILES_FORM, SAMPLES } from "@/tests/upload_fixtures.ts";

const BASE = "http://forms.test";
const SITE = "https://shop.example";
const LIMITS = JSON.stringify({ submit: 100_000 });

function urlencoded(
  env: TestEnv,
  formId: string,
  pairs: [string, string][],
  headers: Record<string, string>,
): Promise<Response> {
  return env.request(`/api/v1/submit/p/${formId}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(pairs).toString(),
  });
}

const VALID: [string, string][] = [["name", "Ada"], ["email", "ada@example.com"]];

async function setup(def: FormDefinition = { ...CONTACT_FORM, allowed_origins: [SITE] }) {
  const env = await testEnv({ BASE_URL: BASE, RATE_LIMITS: LIMITS });
  const form = await makeForm(env.deps, await makeWorkspace(env.deps), def);
  return { env, form };
}

Deno.test("form post - AJAX (Accept prefers JSON) gets the JSON path's answers", async (t) => {
  const { env, form } = await setup();
  try {
    await t.step("urlencoded + Accept: application/json: 201 JSON with CORS", async () => {
      const res = await urlencoded(env, form.id, VALID, {
        accept: "application/json",
        origin: SITE,
      });
      assert.equal(res.status, 201);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      assert.equal(res.headers.get("access-control-allow-origin"), SITE);
      assert.match(res.headers.get("vary") ?? "", /Origin/);
      const body = await res.json();
      assert.deepEqual(Object.keys(body).sort(), [
        "submission_id",
        "submission_number",
        "success",
      ]);
      assert.equal(body.success, true);
      const sub = await readSubmission(env.deps.kv, form.id, body.submission_id);
      assert.equal(sub?.number, body.submission_number);
      assert.deepEqual(sub?.fields, { name: "Ada", email: "ada@example.com" });
    });
    await t.step("q-values decide: JSON preferred over HTML, or not", async () => {
      const cases: [string, boolean][] = [
        ["application/json", true],
        ["application/json, text/plain, */*", true], // axios
        ["text/html;q=0.5, application/json", true],
        ["application/*", true],
        ["text/html, application/json;q=0.9", false],
        ["text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", false], // navigation
        ["*/*", false], // fetch's default
        ["application/json;q=0", false],
        ["text/html, application/json", false], // equal: the first listed wins
        ["application/json, text/html", true],
      ];
      for (const [accept, json] of cases) {
        const res = await urlencoded(env, form.id, VALID, { accept });
        await res.body?.cancel();
        assert.equal(res.status, json ? 201 : 303, accept);
      }
    });
    await t.step("errors: the JSON error body with the JSON path's status", async () => {
      const res = await urlencoded(env, form.id, [["name", "Ada"], ["email", "nope"]], {
        accept: "application/json",
        origin: SITE,
      });
      assert.equal(res.status, 422);
      assert.equal(res.headers.get("access-control-allow-origin"), SITE);
      const body = await res.json();
      assert.equal(body.code, "validation_failed");
      assert.equal(body.errors[0].field, "email");
      const missing = await urlencoded(env, "fNoSuchForm1", VALID, { accept: "application/json" });
      assert.equal(missing.status, 404);
      assert.equal((await missing.json()).code, "not_found");
      const bad = await urlencoded(env, form.id, [...VALID, ["_schema_version", "x"]], {
        accept: "application/json",
      });
      assert.equal(bad.status, 400);
      assert.equal((await bad.json()).code, "bad_request");
    });
    await t.step("a foreign origin: 403 JSON the page can read", async () => {
      const res = await urlencoded(env, form.id, VALID, {
        accept: "application/json",
        origin: "https://evil.example",
      });
      assert.equal(res.status, 403);
      assert.equal(res.headers.get("access-control-allow-origin"), "https://evil.example");
      assert.equal((await res.json()).code, "origin_not_allowed");
    });
    await t.step("honeypot: 403 spam as JSON", async () => {
      const res = await urlencoded(env, form.id, [...VALID, ["_gotcha", "bot"]], {
        accept: "application/json",
      });
      assert.equal(res.status, 403);
      assert.equal((await res.json()).code, "spam_detected");
    });
    await t.step("Idempotency-Key: the replay answers 201 with the same body", async () => {
      const headers = { accept: "application/json", "idempotency-key": "ajax-key-0001" };
      const before = await recount(env.deps, form.id);
      const a = await urlencoded(env, form.id, VALID, headers);
      const b = await urlencoded(env, form.id, VALID, headers);
      assert.equal(a.status, 201);
      assert.equal(b.status, 201);
      assert.equal(b.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(await b.json(), await a.json());
      assert.equal(await recount(env.deps, form.id), before + 1);
    });
    await t.step("_redirect named: the no-JS redirect, even with Accept JSON", async () => {
      for (const name of ["_redirect", "redirect"]) {
        const res = await urlencoded(env, form.id, [...VALID, [name, `${SITE}/thanks`]], {
          accept: "application/json",
        });
        await res.body?.cancel();
        assert.equal(res.status, 303, name);
        assert.match(res.headers.get("location")!, /^https:\/\/shop\.example\/thanks\?/);
      }
    });
    await t.step("_next does not opt out of JSON (other services' AJAX answers JSON)", async () => {
      const res = await urlencoded(env, form.id, [...VALID, ["_next", `${SITE}/thanks`]], {
        accept: "application/json",
      });
      assert.equal(res.status, 201);
      assert.equal((await res.json()).success, true);
    });
    await t.step("a closed form: 423 JSON", async () => {
      const closed = await makeForm(
        env.deps,
        await makeWorkspace(env.deps),
        { ...CONTACT_FORM, accepting: false },
      );
      const res = await urlencoded(env, closed.id, VALID, { accept: "application/json" });
      assert.equal(res.status, 423);
      assert.equal((await res.json()).code, "form_closed");
    });
  } finally {
    env.close();
  }
});

Deno.test("form post - AJAX multipart with a file: 201 JSON, the file referenced", async () => {
  const { env, form } = await setup({ ...FILES_FORM, allowed_origins: [SITE] });
  try {
    const fd = new FormData();
    fd.append("name", "Ada");
    fd.append("cv", new Blob([SAMPLES.pdf], { type: "application/pdf" }), "cv.pdf");
    const res = await env.request(`/api/v1/submit/p/${form.id}`, {
      method: "POST",
      body: fd,
      headers: { accept: "application/json", origin: SITE },
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("access-control-allow-origin"), SITE);
    const body = await res.json();
    const sub = await readSubmission(env.deps.kv, form.id, body.submission_id);
    const cv = sub?.fields.cv as { path: string; originalFilename?: string };
    assert.equal(cv.originalFilename, "cv.pdf");
    assert.deepEqual(sub?.files, [cv.path]);
    // A file over its field's limit: 422 JSON on that field, nothing stored.
    const big = new FormData();
    big.append("cv", new Blob([new Uint8Array(2 * 1024 * 1024)], { type: "text/plain" }), "b.txt");
    const refused = await env.request(`/api/v1/submit/p/${form.id}`, {
      method: "POST",
      body: big,
      headers: { accept: "application/json", origin: SITE },
    });
    assert.equal(refused.status, 422);
    assert.equal((await refused.json()).errors[0].field, "cv");
    assert.equal(await recount(env.deps, form.id), 1);
  } finally {
    env.close();
  }
});
