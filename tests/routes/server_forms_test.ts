import assert from "node:assert/strict";
import { listAudit } from "@/lib/privacy/audit.ts";
import { assertDocumented } from "@/tests/api_contract.ts";
import { makeKey, makeWorkspace, type TestEnv, testEnv } from "@/tests/helpers.ts";

const DEF = {
  name: "Contact",
  fields: [
    { name: "name", type: "text", required: true },
    { name: "email", type: "email", required: true },
  ],
};

/** Calls the Server Data API with `key`; checks the answer against the OpenAPI document. */
async function api(
  env: TestEnv,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await env.request(`/api/v1/server${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await assertDocumented(env.deps, method, `/api/v1/server${path}`, res);
  return { status: res.status, body: json as Record<string, unknown> };
}

type FormBody = { form: Record<string, unknown> & { public_id: string; schema_version: number } };

Deno.test("server forms API - create, read by key, patch", async (t) => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const admin = await makeKey(env.deps, ws, { scopes: ["read", "admin"] });
    const read = await makeKey(env.deps, ws, { scopes: ["read"] });
    let id = "";

    await t.step("POST creates a form with its key (201)", async () => {
      const r = await api(env, admin, "POST", "/forms", { key: "contact", ...DEF });
      assert.equal(r.status, 201);
      const form = (r.body as FormBody).form;
      assert.equal(form.key, "contact");
      assert.equal(form.name, "Contact");
      assert.equal(form.schema_version, 1);
      id = form.public_id;
    });

    await t.step("GET answers to key:<slug>, plain or percent-encoded", async () => {
      for (const ref of ["key:contact", "key%3Acontact"]) {
        const r = await api(env, read, "GET", `/forms/${ref}`);
        assert.equal(r.status, 200, ref);
        assert.equal((r.body as FormBody).form.public_id, id);
      }
      assert.equal((await api(env, read, "GET", "/forms/key:nope")).status, 404);
      const subs = await api(env, read, "GET", "/forms/key:contact/submissions");
      assert.equal(subs.status, 200);
    });

    await t.step("a key already held is 409", async () => {
      const r = await api(env, admin, "POST", "/forms", { key: "contact", ...DEF });
      assert.equal(r.status, 409);
      assert.equal(r.body.code, "conflict");
    });

    await t.step("PATCH of a label keeps the version; of a rule raises it", async () => {
      const fields = [{ ...DEF.fields[0], label: "Your name" }, DEF.fields[1]];
      let r = await api(env, admin, "PATCH", `/forms/${id}`, { fields });
      assert.equal(r.status, 200);
      assert.equal((r.body as FormBody).form.schema_version, 1);
      r = await api(env, admin, "PATCH", "/forms/key:contact", {
        fields: [...fields, { name: "phone", type: "tel" }],
      });
      assert.equal((r.body as FormBody).form.schema_version, 2);
      r = await api(env, admin, "PATCH", `/forms/${id}`, { accepting: false });
      const form = (r.body as FormBody).form;
      assert.equal(form.accepting, false);
      assert.equal((form.fields as unknown[]).length, 3, "other parts are kept");
      assert.equal(form.schema_version, 2);
    });

    await t.step("PATCH renames and removes the key", async () => {
      let r = await api(env, admin, "PATCH", `/forms/${id}`, { key: "contact-us" });
      assert.equal((r.body as FormBody).form.key, "contact-us");
      assert.equal((await api(env, read, "GET", "/forms/key:contact")).status, 404);
      assert.equal((await api(env, read, "GET", "/forms/key:contact-us")).status, 200);
      r = await api(env, admin, "PATCH", `/forms/${id}`, { key: null });
      assert.equal((r.body as FormBody).form.key, undefined);
      assert.equal((await api(env, read, "GET", "/forms/key:contact-us")).status, 404);
      // The freed key can be taken again.
      r = await api(env, admin, "POST", "/forms", { key: "contact-us", ...DEF });
      assert.equal(r.status, 201);
    });

    await t.step("definition errors are 422 with errors", async () => {
      const cases: Array<[string, string, unknown, string]> = [
        ["POST", "/forms", { name: "" }, "name"],
        ["POST", "/forms", { name: "X", fields: [{ name: "a", type: "select" }] }, "fields.0"],
        ["POST", "/forms", { name: "X", colour: "red" }, ""],
        ["POST", "/forms", { name: "X", key: "Not A Slug" }, "key"],
        ["PATCH", `/forms/${id}`, { fields: [{ name: "a", type: "nope" }] }, "fields.0.type"],
        ["PATCH", `/forms/${id}`, { honeypot: "name" }, "honeypot"],
      ];
      for (const [method, path, body, field] of cases) {
        const r = await api(env, admin, method, path, body);
        assert.equal(r.status, 422, JSON.stringify(body));
        assert.equal(r.body.code, "validation_failed");
        const errs = r.body.errors as Array<{ field: string; type: string }>;
        assert.ok(errs.length > 0);
        assert.ok(errs.some((e) => e.field.startsWith(field)), JSON.stringify(errs));
      }
      const form = (await api(env, read, "GET", `/forms/${id}`)).body as FormBody;
      assert.equal(form.form.honeypot, null, "a refused patch changes nothing");
    });

    await t.step("malformed JSON is 400; a read key is 403; a test key is 403", async () => {
      const res = await env.request("/api/v1/server/forms", {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: "{",
      });
      assert.equal(res.status, 400);
      await res.body?.cancel();
      const r = await api(env, read, "POST", "/forms", DEF);
      assert.equal(r.status, 403);
      assert.equal(r.body.code, "insufficient_scope");
      const test = await makeKey(env.deps, ws, { type: "test", scopes: ["read", "admin"] });
      const t2 = await api(env, test, "PATCH", `/forms/${id}`, { accepting: true });
      assert.equal(t2.status, 403);
      assert.equal(t2.body.code, "live_key_required");
    });

    await t.step("another workspace's form is 404, by id and by key", async () => {
      const other = await makeWorkspace(env.deps);
      const key = await makeKey(env.deps, other, { scopes: ["read", "admin"] });
      assert.equal((await api(env, key, "PATCH", `/forms/${id}`, { accepting: true })).status, 404);
      assert.equal((await api(env, key, "GET", "/forms/key:contact-us")).status, 404);
      // Keys are unique per workspace: another workspace may use the same one.
      assert.equal(
        (await api(env, key, "POST", "/forms", { key: "contact-us", ...DEF })).status,
        201,
      );
    });

    await t.step("each change is audited with the key's name, never the definition", async () => {
      const { events } = await listAudit(env.deps, ws.id, { page: 1, limit: 100 });
      const mine = events.filter((e) => e.action === "form.created" || e.action === "form.changed");
      assert.equal(mine.filter((e) => e.action === "form.created").length, 2);
      assert.equal(mine.filter((e) => e.action === "form.changed").length, 5);
      for (const e of mine) {
        assert.equal(e.details.api_key, "test key");
        assert.match(e.actor, /^key:fw_live_/);
        assert.ok(!JSON.stringify(e).includes("Your name"), "no definition content");
      }
    });
  } finally {
    env.close();
  }
});
