/**
 * Drafts on the public API (CONTRACT "Drafts (round 4)"): start, save and read with the
 * resume token; wrong, missing or expired tokens are 404; checks of types and limits but
 * never `required`; a draft is never a submission nor notified nor counted, and is removed
 * by the submission that names it.
 * @module
 */
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import type { Draft } from "@/lib/drafts/types.ts";
import { tokenDigest } from "@/lib/drafts/token.ts";
import { countUnder, DRAFT_FORM, draftReq } from "@/tests/drafts_support.ts";
import { makeForm, makeWorkspace, postJson, testEnv } from "@/tests/helpers.ts";

Deno.test("drafts - start, save, read with the token", async (t) => {
  let clock = Date.parse("2026-05-01T10:00:00Z");
  const env = await testEnv({}, { now: () => clock });
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, DRAFT_FORM);
    const base = `/api/v1/forms/p/${form.id}/drafts`;
    let started: { draft_id: string; resume_token: string; expires_at: string };

    await t.step("the schema says drafts are on", async () => {
      const body = await (await env.request(`/api/v1/forms/p/${form.id}`)).json();
      assert.deepEqual(body.form.drafts, { enabled: true, ttl_days: 7 });
    });

    await t.step(
      "start: 201 with id, token and expiry; required fields may be missing",
      async () => {
        const res = await postJson(env, base, { data: { topic: "sales" }, step: 1 });
        assert.equal(res.status, 201);
        started = await res.json();
        assert.match(started.draft_id, /^drf_[0-9a-z]{26}$/);
        assert.ok(started.resume_token.startsWith(`${started.draft_id}.`));
        assert.equal(started.expires_at, "2026-05-08T10:00:00.000Z");
      },
    );

    await t.step("only a digest of the token is stored", async () => {
      const stored = await env.deps.kv.get<Draft>(keys.draft(form.id, started.draft_id));
      assert.equal(stored.value?.token_digest, tokenDigest(started.resume_token));
      assert.ok(!JSON.stringify(stored.value).includes(started.resume_token.split(".")[1]));
    });

    await t.step("save and read back", async () => {
      clock += 60_000;
      const saved = await draftReq(
        env,
        "PUT",
        `${base}/${started.draft_id}`,
        started.resume_token,
        {
          data: { name: "Ada", topic: "support" },
          step: 2,
        },
      );
      assert.equal(saved.status, 200);
      const read = await draftReq(env, "GET", `${base}/${started.draft_id}`, started.resume_token);
      assert.equal(read.status, 200);
      assert.deepEqual(await read.json(), {
        data: { name: "Ada", topic: "support" },
        step: 2,
        updated_at: "2026-05-01T10:01:00.000Z",
        expires_at: "2026-05-08T10:00:00.000Z",
      });
    });

    await t.step("types and limits are checked: 422 naming the field", async () => {
      const res = await draftReq(env, "PUT", `${base}/${started.draft_id}`, started.resume_token, {
        data: { name: "x".repeat(101), topic: "other" },
      });
      assert.equal(res.status, 422);
      const body = await res.json();
      assert.deepEqual(body.errors.map((e: { field: string }) => e.field).sort(), [
        "name",
        "topic",
      ]);
      const unknown = await postJson(env, base, { data: { nope: 1 } });
      assert.equal(unknown.status, 422);
    });

    await t.step("too much data is 413, a malformed body 400", async () => {
      const big = await postJson(
        env,
        `/api/v1/forms/p/${
          (await makeForm(env.deps, ws, {
            name: "Big",
            fields: [
              { name: "essay", type: "textarea", maxLength: 40_000 },
              { name: "notes", type: "textarea", maxLength: 40_000 },
            ],
            drafts: { enabled: true },
          })).id
        }/drafts`,
        { data: { essay: "x".repeat(35_000), notes: "y".repeat(35_000) } },
      );
      assert.equal(big.status, 413);
      assert.equal((await postJson(env, base, { data: [] })).status, 400);
      assert.equal((await postJson(env, base, { data: {}, step: 0 })).status, 400);
    });

    await t.step("wrong, missing or another draft's token: 404", async () => {
      const other = await (await postJson(env, base, { data: {} })).json();
      const path = `${base}/${started.draft_id}`;
      const wrong = started.resume_token.slice(0, -1) +
        (started.resume_token.endsWith("a") ? "b" : "a");
      for (const token of [wrong, other.resume_token, "nonsense"]) {
        assert.equal((await draftReq(env, "GET", path, token)).status, 404);
        assert.equal((await draftReq(env, "PUT", path, token, { data: {} })).status, 404);
      }
      assert.equal((await env.request(path)).status, 404);
      assert.equal(
        (await draftReq(env, "GET", `${base}/drf_nope`, started.resume_token)).status,
        404,
      );
    });

    await t.step("expired: 404 from its expiry on, before any sweep", async () => {
      clock = Date.parse(started.expires_at);
      const res = await draftReq(env, "GET", `${base}/${started.draft_id}`, started.resume_token);
      assert.equal(res.status, 404);
      assert.equal((await res.json()).error, "Draft not found.");
    });
  } finally {
    env.close();
  }
});

Deno.test("drafts - never a submission, never notified, never counted", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, DRAFT_FORM);
    const started = await (await postJson(env, `/api/v1/forms/p/${form.id}/drafts`, {
      data: { name: "Ada", email: "ada@example.com" },
    })).json();
    await draftReq(
      env,
      "PUT",
      `/api/v1/forms/p/${form.id}/drafts/${started.draft_id}`,
      started.resume_token,
      {
        data: { name: "Ada L", email: "ada@example.com" },
      },
    );
    for (
      const prefix of [
        ["submissions", form.id],
        ["submission_seq"],
        ["submissions_monthly"],
        ["submission_counts"],
        ["notify_events"],
        ["outbox"],
        ["feed_events"],
      ]
    ) assert.equal(await countUnder(env, prefix), 0, JSON.stringify(prefix));
    const q = await env.deps.kv.get(["analytics"]);
    assert.equal(q.value, null);
  } finally {
    env.close();
  }
});

Deno.test("drafts - removed by the submission that names it, in the same commit", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, DRAFT_FORM);
    const base = `/api/v1/forms/p/${form.id}/drafts`;
    const started = await (await postJson(env, base, { data: { email: "ada@example.com" } }))
      .json();
    const kept = await (await postJson(env, base, { data: {} })).json();
    assert.equal(await countUnder(env, ["drafts_by_email"]), 1);
    const res = await postJson(env, `/api/v1/submit/p/${form.id}`, {
      data: { name: "Ada", email: "ada@example.com" },
      draft_id: started.draft_id,
    });
    assert.equal(res.status, 201);
    assert.equal((await env.deps.kv.get(keys.draft(form.id, started.draft_id))).value, null);
    assert.equal(await countUnder(env, ["drafts_by_email"]), 0);
    assert.equal(await countUnder(env, ["drafts_due"]), 1, "only the other draft's entry");
    const gone = await draftReq(env, "GET", `${base}/${started.draft_id}`, started.resume_token);
    assert.equal(gone.status, 404);
    const other = await draftReq(env, "GET", `${base}/${kept.draft_id}`, kept.resume_token);
    assert.equal(other.status, 200, "another draft stays");
    // A submission naming a draft that is gone (or never was) is stored all the same.
    const again = await postJson(env, `/api/v1/submit/p/${form.id}`, {
      data: { name: "Ada", email: "ada@example.com" },
      draft_id: started.draft_id,
    });
    assert.equal(again.status, 201);
  } finally {
    env.close();
  }
});

Deno.test("drafts - refused where the form keeps none or is closed", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const plain = await makeForm(env.deps, ws);
    const res = await postJson(env, `/api/v1/forms/p/${plain.id}/drafts`, { data: {} });
    assert.equal(res.status, 404);
    assert.match((await res.json()).error, /does not keep drafts/);
    const schema = await (await env.request(`/api/v1/forms/p/${plain.id}`)).json();
    assert.equal(schema.form.drafts, undefined);
    const closed = await makeForm(env.deps, ws, { ...DRAFT_FORM, accepting: false });
    assert.equal(
      (await postJson(env, `/api/v1/forms/p/${closed.id}/drafts`, { data: {} })).status,
      423,
    );
    assert.equal((await postJson(env, `/api/v1/forms/p/fNope/drafts`, { data: {} })).status, 404);
  } finally {
    env.close();
  }
});

Deno.test("drafts - rate limited per client IP", async () => {
  const env = await testEnv({ RATE_LIMITS: JSON.stringify({ drafts: 3 }) });
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, DRAFT_FORM);
    const path = `/api/v1/forms/p/${form.id}/drafts`;
    const codes = [];
    for (let i = 0; i < 4; i++) {
      codes.push((await postJson(env, path, { data: {} }, {}, "198.51.100.1")).status);
    }
    assert.deepEqual(codes, [201, 201, 201, 429]);
    assert.equal((await postJson(env, path, { data: {} }, {}, "198.51.100.2")).status, 201);
  } finally {
    env.close();
  }
});
