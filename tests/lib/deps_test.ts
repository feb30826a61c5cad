import assert from "node:assert/strict";
import { claimDigest } from "@/lib/protection/captcha.ts";
import { buildDeps } from "@/lib/runtime.ts";
import type { Form } from "@/lib/schemas.ts";
import { createApp } from "@/routes/mod.ts";
import { FAKE_SECRET, startFakeSiteverify } from "@/tests/fake_siteverify.ts";
import {
  CONTACT_FORM,
  contactData,
  makeForm,
  makeWorkspace,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";

/** A second process: its own Deps and app over the same KV handle as `env`. */
async function secondProcess(env: TestEnv): Promise<TestEnv> {
  const deps = await buildDeps(env.deps.kv, env.deps.config);
  const app = createApp(deps);
  return {
    ...env,
    deps,
    app,
    request: (path, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set("x-forwarded-for", "203.0.113.9");
      return Promise.resolve(app.request(`http://localhost${path}`, { ...init, headers }));
    },
  };
}

/** A promise and the function that settles it. */
function blocker(): { promise: Promise<void>; release: () => void } {
  let release = () => {};
  const promise = new Promise<void>((r) => release = r);
  return { promise, release };
}

/** Whether `p` is still pending after the other work queued now has run (a bounded wait). */
async function pendingAfter(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"pending">((r) => timer = setTimeout(() => r("pending"), ms));
  const state = await Promise.race([p.then(() => "settled"), late]);
  clearTimeout(timer);
  return state === "pending";
}

function formPost(env: TestEnv, form: Form, key: string): Promise<Response> {
  return env.request(`/api/v1/submit/p/${form.id}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...contactData(1).data, _idempotency_key: key } as Record<
      string,
      string
    >).toString(),
  });
}

Deno.test("deps - two Deps on one KV share no per-process state", async (t) => {
  const fake = startFakeSiteverify();
  const a = await testEnv(fake.urls);
  const b = await secondProcess(a);
  try {
    const ws = await makeWorkspace(a.deps);

    await t.step("every per-process part is built anew", () => {
      for (const part of ["writer", "limits", "entryLocks", "keyCache", "reads"] as const) {
        assert.notEqual(a.deps[part], b.deps[part], part);
      }
      for (const part of ["captchaClaims", "posts", "attaching"] as const) {
        assert.notEqual(a.deps.inflight[part], b.deps.inflight[part], part);
      }
      assert.notEqual(a.deps.formWorkspaces, b.deps.formWorkspaces);
    });

    await t.step("a form post in flight holds back a double post in its process only", async () => {
      const form = await makeForm(a.deps, ws);
      const held = blocker();
      a.deps.inflight.posts.set(`${form.id}/hf_twice`, held.promise);
      const otherP = formPost(b, form, "hf_twice");
      assert.ok(!(await pendingAfter(otherP, 5_000)), "the other process does not wait");
      const other = await otherP;
      assert.equal(other.status, 303, await other.text());
      const same = formPost(a, form, "hf_twice");
      assert.ok(await pendingAfter(same, 300), "the post waits for the one in flight");
      held.release();
      const res = await same;
      assert.equal(res.status, 303);
      // The waiting post replays the other process's submission.
      assert.equal(res.headers.get("location"), other.headers.get("location"));
    });

    await t.step(
      "a CAPTCHA token claimed in one process is not waited for by another",
      async () => {
        const form = await makeForm(a.deps, ws, {
          ...CONTACT_FORM,
          captcha: { provider: "turnstile", secret: FAKE_SECRET },
        });
        const token = "ok:claimed";
        const held = blocker();
        a.deps.inflight.captchaClaims.set((await claimDigest(form, token))!, held.promise);
        const body = JSON.stringify({ ...contactData(2), captcha_token: token });
        const init = { method: "POST", headers: { "content-type": "application/json" }, body };
        const path = `/api/v1/submit/p/${form.id}`;
        const otherP = b.request(path, init);
        assert.ok(!(await pendingAfter(otherP, 5_000)), "the other process does not wait");
        const other = await otherP;
        assert.equal(other.status, 201, await other.text());
        const same = a.request(path, init);
        assert.ok(await pendingAfter(same, 300), "the submit waits for the claim in its process");
        held.release();
        const res = await same;
        assert.equal(res.status, 403);
        assert.equal((await res.json()).code, "captcha_invalid");
      },
    );
  } finally {
    a.close();
    await fake.close();
  }
});
