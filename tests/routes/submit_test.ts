import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import { setAccepting, updateForm } from "@/lib/forms/forms.ts";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value } from "@/lib/kv/kv.ts";
import { updateWorkspace } from "@/lib/workspaces/workspaces.ts";
import {
  CONTACT_FORM,
  contactData,
  makeForm,
  makeKey,
  makeWorkspace,
  postJson,
  recount,
  testEnv,
} from "@/tests/helpers.ts";

const RAISED = {
  RATE_LIMITS: JSON.stringify({ submit: 100000, workspace: 100000, schema: 100000 }),
};

Deno.test("submit - the JSON path", async (t) => {
  const env = await testEnv(RAISED);
  const ws = await makeWorkspace(env.deps);
  const form = await makeForm(env.deps, ws);
  const path = `/api/v1/submit/p/${form.id}`;

  await t.step("201 with id and number; the record never exposes internals", async () => {
    const res = await postJson(env, path, { ...contactData(1), metadata: { ref: "x" } });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.deepEqual(Object.keys(body).sort(), ["submission_id", "submission_number", "success"]);
    assert.equal(body.success, true);
    assert.equal(body.submission_number, 1);
    assert.match(body.submission_id, /^sub_[0-9a-z]{26}$/);
    assert.ok(res.headers.get("x-request-id"));
    const stored = await readSubmission(env.deps.kv, form.id, body.submission_id);
    assert.equal(stored?.status, "completed");
    assert.deepEqual(stored?.fields, contactData(1).data);
  });

  await t.step("rule 1: same key and payload replays (key order does not matter)", async () => {
    const first = await postJson(env, path, {
      data: { name: "A", email: "a@x.io" },
      metadata: { a: 1, b: 2 },
    }, { "idempotency-key": "k-1" });
    const again = await postJson(env, path, {
      metadata: { b: 2, a: 1 },
      data: { email: "a@x.io", name: "A" },
    }, { "idempotency-key": "k-1" });
    assert.equal(first.status, 201);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal(first.headers.get("idempotent-replayed"), null);
    assert.deepEqual(await again.json(), await first.json());
  });

  await t.step("rule 2: same key, different payload is 409", async () => {
    const res = await postJson(env, path, { data: { name: "B", email: "a@x.io" } }, {
      "idempotency-key": "k-1",
    });
    assert.equal(res.status, 409);
    assert.equal((await res.json()).code, "idempotency_key_reused");
  });

  await t.step("idempotency keys are scoped to the form", async () => {
    const other = await makeForm(env.deps, ws);
    const res = await postJson(env, `/api/v1/submit/p/${other.id}`, {
      data: { name: "B", email: "a@x.io" },
    }, { "idempotency-key": "k-1" });
    assert.equal(res.status, 201);
    assert.equal((await res.json()).submission_number, 1);
  });

  await t.step("rule 3: a stale schema_version is 409 schema_changed", async () => {
    const ok = await postJson(env, path, { ...contactData(2), schema_version: 1 });
    assert.equal(ok.status, 201);
    await updateForm(env.deps, form.id, {
      ...CONTACT_FORM,
      fields: [...CONTACT_FORM.fields!, { name: "extra", type: "text" }],
    });
    const res = await postJson(env, path, { ...contactData(3), schema_version: 1 });
    assert.equal(res.status, 409);
    const body = await res.json();
    assert.equal(body.code, "schema_changed");
    assert.equal(body.schema_version, 2);
    assert.equal((await postJson(env, path, { ...contactData(3), schema_version: 2 })).status, 201);
  });

  await t.step("rule 4: validation failure is 422 with errors items", async () => {
    const res = await postJson(env, path, { data: { name: "", email: "bad", nope: 1 } });
    assert.equal(res.status, 422);
    const body = await res.json();
    assert.equal(body.code, "validation_failed");
    assert.ok(typeof body.error === "string");
    for (const e of body.errors) {
      assert.deepEqual(Object.keys(e).sort(), ["field", "fieldId", "message", "type"]);
    }
    assert.deepEqual(body.errors.map((e: { type: string }) => e.type).sort(), [
      "email",
      "required",
      "unknown_field",
    ]);
  });

  await t.step("rule 6: a closed form is 423", async () => {
    await setAccepting(env.deps, form.id, false);
    const res = await postJson(env, path, contactData(4));
    assert.equal(res.status, 423);
    assert.equal((await res.json()).code, "form_closed");
    await setAccepting(env.deps, form.id, true);
  });

  await t.step("rule 7: missing form and suspended workspace are byte-identical 404s", async () => {
    const missing = await postJson(env, "/api/v1/submit/p/fDoesNotExist1", contactData(5));
    await updateWorkspace(env.deps, ws.id, { suspended: true });
    const suspended = await postJson(env, path, contactData(5));
    const schema = await env.request(`/api/v1/forms/p/${form.id}`);
    await updateWorkspace(env.deps, ws.id, { suspended: false });
    assert.equal(missing.status, 404);
    assert.equal(suspended.status, 404);
    assert.equal(schema.status, 404);
    const a = await missing.text();
    assert.equal(await suspended.text(), a);
    assert.equal(await schema.text(), a);
  });

  await t.step("rule 8: an unknown or revoked key is 401 Invalid API key.", async () => {
    for (
      const auth of [
        "Bearer fw_live_nope",
        "Bearer fw_live_" + "a".repeat(38),
        "Basic abc",
        "Bearer",
      ]
    ) {
      const res = await postJson(env, path, contactData(6), { authorization: auth });
      assert.equal(res.status, 401, auth);
      assert.deepEqual(await res.json(), { error: "Invalid API key.", code: "invalid_api_key" });
    }
    const key = await makeKey(env.deps, ws);
    assert.equal(
      (await postJson(env, path, contactData(6), { authorization: `Bearer ${key}` })).status,
      201,
    );
    const { id } = (await env.deps.kv.get<{ id: string }>(keys.apiKeyByHash(await sha(key))))
      .value!;
    const { revokeApiKey } = await import("@/lib/keys/api_keys.ts");
    await revokeApiKey(env.deps, id);
    const res = await postJson(env, path, contactData(6), { authorization: `Bearer ${key}` });
    assert.equal(res.status, 401);
  });

  await t.step("a key of another workspace gets 404, a read-only key 403", async () => {
    const other = await makeWorkspace(env.deps);
    const foreign = await makeKey(env.deps, other);
    const res = await postJson(env, path, contactData(7), { authorization: `Bearer ${foreign}` });
    assert.equal(res.status, 404);
    const readOnly = await makeKey(env.deps, other, { scopes: ["read"] });
    const ro = await postJson(env, path, contactData(7), { authorization: `Bearer ${readOnly}` });
    assert.equal(ro.status, 403);
    assert.equal((await ro.json()).code, "insufficient_scope");
  });

  await t.step("counters equal a recount", async () => {
    const total = u64Value(
      (await env.deps.kv.get(keys.submissionCount(form.id, "live", "all"))).value,
    );
    assert.equal(total, await recount(env.deps, form.id));
  });
  env.close();
});

async function sha(text: string): Promise<string> {
  const { sha256Hex } = await import("@/lib/ids.ts");
  return await sha256Hex(text);
}

Deno.test("submit - concurrency", async (t) => {
  const env = await testEnv(RAISED);
  const ws = await makeWorkspace(env.deps);
  const form = await makeForm(env.deps, ws);
  const path = `/api/v1/submit/p/${form.id}`;

  await t.step("200 concurrent submits with one Idempotency-Key store exactly one", async () => {
    const responses = await Promise.all(
      Array.from(
        { length: 200 },
        () => postJson(env, path, contactData(1), { "idempotency-key": "same" }),
      ),
    );
    const bodies = await Promise.all(responses.map((r) => r.json()));
    assert.deepEqual(new Set(responses.map((r) => r.status)), new Set([201]));
    assert.equal(new Set(bodies.map((b) => b.submission_id)).size, 1);
    assert.equal(
      responses.filter((r) => r.headers.get("idempotent-replayed") !== "true").length,
      1,
    );
    assert.equal(await recount(env.deps, form.id), 1);
  });

  await t.step("100 concurrent distinct submits get numbers 2..101 exactly once", async () => {
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => postJson(env, path, contactData(i))),
    );
    const numbers = (await Promise.all(responses.map((r) => r.json()))).map((b) =>
      b.submission_number
    );
    assert.deepEqual(numbers.sort((a, b) => a - b), Array.from({ length: 100 }, (_, i) => i + 2));
    assert.equal(await recount(env.deps, form.id), 101);
    const count = u64Value(
      (await env.deps.kv.get(keys.submissionCount(form.id, "live", "all"))).value,
    );
    assert.equal(count, 101);
  });

  await t.step("group commit: fewer commits than submissions", () => {
    const s = env.deps.writer.stats;
    assert.equal(s.submissions, 101);
    assert.ok(s.commits < s.submissions, `commits ${s.commits}`);
  });
  env.close();
});

Deno.test("submit - the first 100 concurrent submits of a new form are numbered 1..100", async () => {
  const env = await testEnv(RAISED);
  const form = await makeForm(env.deps, await makeWorkspace(env.deps));
  const responses = await Promise.all(
    Array.from(
      { length: 100 },
      (_, i) => postJson(env, `/api/v1/submit/p/${form.id}`, contactData(i)),
    ),
  );
  const numbers = (await Promise.all(responses.map((r) => r.json()))).map((b) =>
    b.submission_number
  );
  assert.deepEqual(numbers.sort((a, b) => a - b), Array.from({ length: 100 }, (_, i) => i + 1));
  env.close();
});

Deno.test("submit - a submit makes one KV read, with a key or from a browser (CORS included)", async () => {
  const env = await testEnv(RAISED);
  const ws = await makeWorkspace(env.deps, "business");
  const form = await makeForm(env.deps, ws);
  const key = await makeKey(env.deps, ws);
  const path = `/api/v1/submit/p/${form.id}`;
  const calls: string[] = [];
  const kv = env.deps.kv;
  for (const name of ["get", "getMany", "list"] as const) {
    const original = kv[name].bind(kv) as (...args: unknown[]) => unknown;
    (kv as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      calls.push(name);
      return original(...args);
    };
  }
  let sent = 0;
  const send = async (headers: Record<string, string>) => {
    const i = sent++;
    const res = await postJson(env, path, contactData(i), {
      "idempotency-key": `one-read-${i}`,
      ...headers,
    }, "203.0.113.9");
    assert.equal(res.status, 201, await res.text());
    assert.equal(res.headers.get("idempotent-replayed"), null);
  };
  // The first of each kind fills the caches (the key, the form's workspace, the writer's
  // sequence, marks and limit states); every later one reads once.
  const browsers = [{}, { origin: "https://shop.example" }];
  for (
    const headers of [{ authorization: `Bearer ${key}` }, ...browsers] as Record<string, string>[]
  ) {
    await send(headers);
    for (let n = 0; n < 3; n++) {
      calls.length = 0;
      await send(headers);
      assert.deepEqual(calls, ["getMany"], JSON.stringify(headers));
    }
  }
  env.close();
});
