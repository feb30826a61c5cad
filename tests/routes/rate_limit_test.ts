import assert from "node:assert/strict";
import type { Form } from "@/lib/schemas.ts";
import { loadConfig } from "@/lib/config.ts";
import { buildDeps } from "@/lib/runtime.ts";
import {
  CONTACT_FORM,
  contactData,
  makeForm,
  makeKey,
  makeWorkspace,
  postJson,
  recount,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { type ServerProcess, startServer } from "@/tests/processes.ts";

/** Sends `n` requests one after another; returns their statuses (bodies consumed). */
async function statuses(n: number, send: (i: number) => Promise<Response>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await send(i);
    await res.body?.cancel();
    out.push(res.status);
  }
  return out;
}

/** Asserts a 429 is the JSON error body and carries no Retry-After. */
async function assert429(res: Response): Promise<void> {
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("retry-after"), null);
  assert.match(res.headers.get("content-type") ?? "", /application\/json/);
  const body = await res.json();
  assert.equal(body.code, "rate_limited");
  assert.equal(typeof body.error, "string");
}

/** Exactly `limit` requests pass, the next is a proper 429, another client is unaffected. */
async function checkLimit(
  limit: number,
  send: (ip: string, i: number) => Promise<Response>,
): Promise<void> {
  const ip = "198.51.100.40";
  // A third client's request first: the route's first answer pays one-off costs (the test
  // helper compiles its check against the OpenAPI document) that would stretch the window.
  await (await send("203.0.113.240", limit + 2)).body?.cancel();
  const passed = await statuses(limit, (i) => send(ip, i));
  assert.ok(passed.every((s) => s !== 429), `first ${limit}: ${passed}`);
  await assert429(await send(ip, limit));
  const other = await send("198.51.100.41", limit + 1);
  assert.notEqual(other.status, 429);
  await other.body?.cancel();
}

Deno.test("rate limits - each limit of SPEC part 8, per client IP", async (t) => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, {
      ...CONTACT_FORM,
      fields: [
        ...CONTACT_FORM.fields!,
        { id: "fld_cv", name: "cv", type: "file", allowedTypes: ["application/pdf"], maxSizeMB: 5 },
      ],
    });
    const p = `/api/v1/forms/p/${form.id}`;

    await t.step("schema fetch: 60 per minute", async () => {
      await checkLimit(60, (ip) => env.request(p, { ip }));
    });
    await t.step("submit: 20 per minute", async () => {
      await checkLimit(
        20,
        (ip, i) => postJson(env, `/api/v1/submit/p/${form.id}`, contactData(i), {}, ip),
      );
    });
    await t.step("validate: 30 per minute", async () => {
      await checkLimit(30, (ip) => postJson(env, `${p}/validate`, contactData(), {}, ip));
    });
    await t.step("events: 60 per minute", async () => {
      await checkLimit(60, (ip) => postJson(env, `${p}/events`, { type: "view" }, {}, ip));
    });
    await t.step("upload URL: 10 per minute", async () => {
      const body = {
        fieldId: "fld_cv",
        fileName: "cv.pdf",
        contentType: "application/pdf",
        sizeBytes: 1000,
      };
      await checkLimit(10, (ip) => postJson(env, `${p}/upload-url`, body, {}, ip));
    });
    await t.step(
      "refused submits count too (a flood of bad requests is still a flood)",
      async () => {
        const ip = "198.51.100.42";
        const bad = await statuses(
          20,
          () => postJson(env, `/api/v1/submit/p/${form.id}`, { data: {} }, {}, ip),
        );
        assert.ok(bad.every((s) => s === 422));
        await assert429(await postJson(env, `/api/v1/submit/p/${form.id}`, contactData(), {}, ip));
      },
    );
  } finally {
    env.close();
  }
});

Deno.test("rate limits - key-authenticated submits are limited per workspace", async () => {
  const env = await testEnv({ RATE_LIMITS: '{"workspace":5}' });
  try {
    const ws = await makeWorkspace(env.deps);
    const key = await makeKey(env.deps, ws);
    const form = await makeForm(env.deps, ws);
    const auth = { authorization: `Bearer ${key}` };
    const path = `/api/v1/submit/p/${form.id}`;
    // Different addresses, one workspace: one budget.
    const sent = await statuses(5, (i) => postJson(env, path, contactData(i), auth, `10.0.0.${i}`));
    assert.deepEqual(sent, [201, 201, 201, 201, 201]);
    await assert429(await postJson(env, path, contactData(), auth, "10.0.0.99"));
    // Browsers are limited per IP, apart from the workspace's key budget.
    assert.equal((await postJson(env, path, contactData(), {}, "10.0.0.99")).status, 201);
  } finally {
    env.close();
  }
});

/**
 * Runs `fn` against an on-disk KV, where a commit takes long enough for concurrent ones to
 * race, with the clock standing still so no unit refills during a burst.
 */
async function withBurstEnv(
  rateLimits: string,
  fn: (env: TestEnv) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "formwell-rl-burst-" });
  const now = Date.now();
  const env = await testEnv(
    { RATE_LIMITS: rateLimits, KV_PATH: `${dir}/formwell.kv` },
    { now: () => now },
  );
  try {
    await fn(env);
  } finally {
    env.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Counts of each status in `statuses`, for the ones listed. */
function tally(statuses: number[], ...wanted: number[]): number[] {
  return wanted.map((w) => statuses.filter((s) => s === w).length);
}

Deno.test("rate limits - one key's concurrent Server Data API calls: exactly the limit passes, none fails", async () => {
  // Each spend committing alone and retrying its conflicts made most of these 503.
  await withBurstEnv('{"workspace":200}', async (env) => {
    const ws = await makeWorkspace(env.deps);
    const key = await makeKey(env.deps, ws, { scopes: ["read"] });
    await makeForm(env.deps, ws);
    const commitsBefore = env.deps.limits.stats.commits;
    // A backend's workers all at once, on one key: one budget, no conflicts among them.
    const results = await Promise.all(Array.from({ length: 300 }, async () => {
      const res = await env.request("/api/v1/server/forms", {
        headers: { authorization: `Bearer ${key}` },
      });
      await res.body?.cancel();
      return res.status;
    }));
    assert.deepEqual(tally(results, 200, 429), [200, 100], String(results));
    // Spends that arrive together share commits instead of paying (and racing for) one each.
    const commits = env.deps.limits.stats.commits - commitsBefore;
    assert.ok(commits < 30, `${commits} commits for 300 spends`);
  });
});

Deno.test("rate limits - one key submitting to many forms at once: exactly the limit stored, no conflicts", async () => {
  // Each form has its own group commit, and all of them spend the workspace's one budget:
  // they take turns on it instead of failing each other's checks (which ended in 503s).
  await withBurstEnv('{"workspace":100}', async (env) => {
    const ws = await makeWorkspace(env.deps);
    const key = await makeKey(env.deps, ws);
    const forms: Form[] = [];
    for (let i = 0; i < 8; i++) forms.push(await makeForm(env.deps, ws));
    const results = await Promise.all(Array.from({ length: 160 }, async (_, i) => {
      const res = await postJson(
        env,
        `/api/v1/submit/p/${forms[i % forms.length].id}`,
        contactData(i),
        { authorization: `Bearer ${key}` },
      );
      await res.body?.cancel();
      return res.status;
    }));
    assert.deepEqual(tally(results, 201, 429), [100, 60], String(results));
    assert.equal(env.deps.writer.stats.conflicts, 0);
    let stored = 0;
    for (const form of forms) stored += await recount(env.deps, form.id);
    assert.equal(stored, 100);
  });
});

Deno.test("rate limits - refused submits count, whatever refused them", async () => {
  const env = await testEnv({ RATE_LIMITS: '{"submit":6}' });
  try {
    const form = await makeForm(env.deps, await makeWorkspace(env.deps));
    const path = `/api/v1/submit/p/${form.id}`;
    const refused = [
      postJson(env, path, "{not json", {}, "192.0.2.50"),
      postJson(env, path, contactData(), { authorization: "Bearer fw_live_fake" }, "192.0.2.50"),
      postJson(env, path, contactData(), { "idempotency-key": "bad key\u0001" }, "192.0.2.50"),
      env.request(path, {
        method: "POST",
        body: "x",
        headers: { "content-type": "text/plain" },
        ip: "192.0.2.50",
      }),
      postJson(env, "/api/v1/submit/p/fNoSuchForm12", contactData(), {}, "192.0.2.50"),
      postJson(env, path, { data: { name: "" } }, {}, "192.0.2.50"),
    ];
    const codes = [];
    for (const r of refused) {
      const res = await r;
      await res.body?.cancel();
      codes.push(res.status);
    }
    assert.deepEqual(codes, [400, 401, 400, 415, 404, 422]);
    // Six refusals spent the budget of six: a valid submit from that address is now 429.
    await assert429(await postJson(env, path, contactData(), {}, "192.0.2.50"));
    assert.equal((await postJson(env, path, contactData(), {}, "192.0.2.51")).status, 201);
  } finally {
    env.close();
  }
});

Deno.test("rate limits - 10 at 59.9 s and 10 at 60.1 s pass only 10 through 10/min", async () => {
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  let clock = minute + 59_900;
  const env = await testEnv({ RATE_LIMITS: '{"submit":10}' }, { now: () => clock });
  try {
    const form = await makeForm(env.deps, await makeWorkspace(env.deps));
    const send = (i: number) =>
      postJson(env, `/api/v1/submit/p/${form.id}`, contactData(i), {}, "198.51.100.43");
    const before = await statuses(10, send);
    clock = minute + 60_100; // a fixed window would start afresh here
    const after = await statuses(10, (i) => send(10 + i));
    const passed = [...before, ...after].filter((s) => s === 201).length;
    console.log(`window boundary: ${passed} of 20 passed a 10/min limit`);
    assert.equal(passed, 10);
    assert.ok(after.every((s) => s === 429));
    // GCRA refills one unit every 6 s.
    clock = minute + 59_900 + 6_000;
    assert.deepEqual(await statuses(2, (i) => send(30 + i)), [201, 429]);
  } finally {
    env.close();
  }
});

Deno.test("rate limits - identities: IPv6 /64 groups and TRUST_PROXY", async (t) => {
  await t.step("addresses in one /64 share a budget, the next /64 does not", async () => {
    const env = await testEnv({ RATE_LIMITS: '{"validate":2}' });
    try {
      const form = await makeForm(env.deps, await makeWorkspace(env.deps));
      const v = (ip: string) =>
        postJson(env, `/api/v1/forms/p/${form.id}/validate`, contactData(), {}, ip);
      const sent = await statuses(
        2,
        (i) => v(i ? "2001:db8:abcd:12::1" : "2001:db8:abcd:12:ffff:ffff:ffff:ffff"),
      );
      assert.deepEqual(sent, [200, 200]);
      await assert429(await v("2001:0db8:abcd:0012:0000:0000:0000:0005"));
      assert.equal((await v("2001:db8:abcd:13::1")).status, 200);
    } finally {
      env.close();
    }
  });

  await t.step("TRUST_PROXY on: the right-most X-Forwarded-For entry is the client", async () => {
    const env = await testEnv({ RATE_LIMITS: '{"validate":2}' });
    try {
      const form = await makeForm(env.deps, await makeWorkspace(env.deps));
      const v = (xff: string) =>
        postJson(env, `/api/v1/forms/p/${form.id}/validate`, contactData(), {
          "x-forwarded-for": xff,
        });
      // A client prepending made-up entries does not get a fresh budget.
      const sent = await statuses(2, (i) => v(`10.9.9.${i}, 198.51.100.44`));
      assert.deepEqual(sent, [200, 200]);
      await assert429(await v("1.2.3.4, 198.51.100.44"));
      assert.equal((await v("198.51.100.44, 198.51.100.45")).status, 200);
    } finally {
      env.close();
    }
  });

  await t.step("TRUST_PROXY off: X-Forwarded-For is ignored", async () => {
    const env = await testEnv({ TRUST_PROXY: "0", RATE_LIMITS: '{"validate":2}' });
    try {
      const form = await makeForm(env.deps, await makeWorkspace(env.deps));
      const sent = await statuses(
        3,
        (i) =>
          postJson(
            env,
            `/api/v1/forms/p/${form.id}/validate`,
            contactData(),
            {},
            `198.51.100.${50 + i}`,
          ),
      );
      assert.deepEqual(sent, [200, 200, 429]);
    } finally {
      env.close();
    }
  });
});

Deno.test("rate limits - two server processes on one KV file share one limit", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-rl-" });
  const kvPath = `${dir}/formwell.kv`;
  const vars = {
    KV_PATH: kvPath,
    SECRET: "test-secret-test-secret-test-secret-0123",
    TRUST_PROXY: "1",
    FORMWELL_SEED: "0",
    RATE_LIMITS: '{"submit":5,"validate":8}',
    LOCAL_STORAGE_DIR: `${dir}/files`,
    NO_COLOR: "1",
  };
  // The form is created before the servers start, through the same library they use.
  const kv = await Deno.openKv(kvPath);
  let formId: string;
  try {
    const deps = await buildDeps(kv, loadConfig(vars));
    formId = (await makeForm(deps, await makeWorkspace(deps))).id;
  } finally {
    kv.close();
  }
  const servers: ServerProcess[] = [];
  try {
    for (let i = 0; i < 2; i++) servers.push(await startServer(vars));
    /** Sends `n` posts from one address, alternating between the servers, all at once. */
    const burst = async (n: number, path: string, ip: string) => {
      const started = performance.now();
      const statuses = await Promise.all(Array.from({ length: n }, async (_, i) => {
        const res = await fetch(`${servers[i % 2].url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": ip },
          body: JSON.stringify(contactData(i)),
        });
        await res.body?.cancel();
        return res.status;
      }));
      return { statuses, elapsed: performance.now() - started };
    };
    await t.step("submits (spent in the submission's group commit)", async () => {
      const { statuses, elapsed } = await burst(16, `/api/v1/submit/p/${formId}`, "198.51.100.60");
      const ok = statuses.filter((s) => s === 201).length;
      console.log(`two processes, limit 5/min: ${ok} of 16 accepted in ${elapsed.toFixed(0)} ms`);
      // GCRA refills one unit per 12 s at 5/min; the burst itself is at most 5.
      assert.ok(ok >= 5 && ok <= 5 + Math.floor(elapsed / 12_000), String(statuses));
      assert.ok(statuses.every((s) => s === 201 || s === 429), String(statuses));
    });
    await t.step("validations (spent in each process's batched spends)", async () => {
      const path = `/api/v1/forms/p/${formId}/validate`;
      const { statuses, elapsed } = await burst(24, path, "198.51.100.61");
      const ok = statuses.filter((s) => s === 200).length;
      console.log(`two processes, limit 8/min: ${ok} of 24 passed in ${elapsed.toFixed(0)} ms`);
      // One unit per 7.5 s at 8/min.
      assert.ok(ok >= 8 && ok <= 8 + Math.floor(elapsed / 7_500), String(statuses));
      assert.ok(statuses.every((s) => s === 200 || s === 429), String(statuses));
    });
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
