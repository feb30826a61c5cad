/**
 * A submit reads its form once: a form post reads it before its body (whose multipart caps
 * depend on the form's fields), and the pipeline takes that read; a JSON submit reads it
 * with the rest of its state. A key's scope is checked before the form is read.
 */
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { CONTACT_FORM, makeForm, makeKey, makeWorkspace, testEnv } from "@/tests/helpers.ts";

const LIMITS = JSON.stringify({ submit: 100_000, workspace: 100_000 });

Deno.test("submit - the form is read once per request", async (t) => {
  const env = await testEnv({ RATE_LIMITS: LIMITS });
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, CONTACT_FORM);
    const key = await makeKey(env.deps, ws);
    const formKey = JSON.stringify(keys.form(form.id));
    let formReads = 0;
    const reads = env.deps.reads;
    const count = (ks: Deno.KvKey[]) => {
      formReads += ks.filter((k) => JSON.stringify(k) === formKey).length;
    };
    const getMany = reads.getMany.bind(reads);
    const get = reads.get.bind(reads);
    reads.getMany = ((ks: Deno.KvKey[]) => (count(ks), getMany(ks))) as typeof reads.getMany;
    reads.get = ((k: Deno.KvKey) => (count([k]), get(k))) as typeof reads.get;
    const submitted = async (init: RequestInit) => {
      formReads = 0;
      const res = await env.request(`/api/v1/submit/p/${form.id}`, { method: "POST", ...init });
      await res.body?.cancel();
      return { status: res.status, formReads };
    };
    const fields = new URLSearchParams({ name: "Ada", email: "ada@example.com" });

    await t.step("a form post, from a page and with a key", async () => {
      const form = { "content-type": "application/x-www-form-urlencoded" };
      assert.deepEqual(await submitted({ headers: form, body: fields }), {
        status: 303,
        formReads: 1,
      });
      const withKey = { ...form, authorization: `Bearer ${key}` };
      assert.deepEqual(await submitted({ headers: withKey, body: fields }), {
        status: 303,
        formReads: 1,
      });
    });

    await t.step("a multipart post", async () => {
      const body = new FormData();
      for (const [k, v] of fields) body.append(k, v);
      assert.deepEqual(await submitted({ body }), { status: 303, formReads: 1 });
    });

    await t.step("a JSON submit", async () => {
      const json = { "content-type": "application/json" };
      const body = JSON.stringify({ data: Object.fromEntries(fields) });
      assert.deepEqual(await submitted({ headers: json, body }), { status: 201, formReads: 1 });
    });

    await t.step("a key without the submit scope is refused before the form is read", async () => {
      const reader = await makeKey(env.deps, ws, { scopes: ["read"] });
      const headers = {
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
        authorization: `Bearer ${reader}`,
      };
      assert.deepEqual(await submitted({ headers, body: fields }), { status: 403, formReads: 0 });
    });
  } finally {
    env.close();
  }
});
