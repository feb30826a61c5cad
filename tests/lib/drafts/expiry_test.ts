/**
 * Draft expiry: the `drafts_sweep` job removes what fell due, under the KV-queue runner and
 * under `JOBS=table`; two processes sweeping one KV at once remove each draft once; the
 * form's retention removes drafts older than it allows.
 * @module
 */
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import { enqueueDraftSweep, sweepDrafts } from "@/lib/drafts/expiry.ts";
import { startDraft } from "@/lib/drafts/store.ts";
import { updateForm } from "@/lib/forms/forms.ts";
import { retainForm } from "@/lib/privacy/retention.ts";
import { TableJobs } from "@/lib/jobs/table_runner.ts";
import type { Form } from "@/lib/schemas.ts";
import { makeForm, makeWorkspace, type TestEnv, testEnv } from "@/tests/helpers.ts";
import { waitFor } from "@/tests/lib/notify/_support.ts";
import { countUnder as left, DRAFT_FORM } from "@/tests/drafts_support.ts";

const DAY = 86_400_000;

async function draftsOf(env: TestEnv, form: Form, n: number, email = "ada@example.com") {
  for (let i = 0; i < n; i++) {
    await startDraft(env.deps, form, { data: { email } });
  }
}

for (const mode of ["queue", "table"] as const) {
  Deno.test(`drafts expiry (JOBS=${mode}) - the sweep job removes what fell due`, async () => {
    let clock = Date.now();
    const env = await testEnv({ JOBS: mode }, {
      now: () => clock,
      ...(mode === "table"
        ? { jobs: (kv) => new TableJobs(kv, { pollMs: 50, now: () => clock }) }
        : {}),
    });
    try {
      env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
      const ws = await makeWorkspace(env.deps);
      const short = await makeForm(env.deps, ws, {
        ...DRAFT_FORM,
        drafts: { enabled: true, ttl_days: 1 },
      });
      const long = await makeForm(env.deps, ws, DRAFT_FORM); // 7 days
      await draftsOf(env, short, 3);
      await draftsOf(env, long, 2);
      assert.equal(await left(env, ["drafts_by_email"]), 5);
      clock += DAY + 1;
      await enqueueDraftSweep(env.deps);
      await waitFor(
        "the short-lived drafts to go",
        async () => (await left(env, keys.drafts(short.id))) === 0,
      );
      assert.equal(await left(env, keys.drafts(long.id)), 2, "the others stay");
      assert.equal(await left(env, keys.draftsDue()), 2);
      assert.equal(await left(env, ["drafts_by_email"]), 2);
      if (mode === "table") {
        await waitFor(
          "the job table to empty",
          async () => (await left(env, keys.jobsDue())) === 0,
        );
      }
    } finally {
      await env.deps.jobs.stop();
      env.close();
    }
  });
}

Deno.test("drafts expiry - two processes sweeping at once remove each draft once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-drafts-" });
  const path = `${dir}/kv.sqlite`;
  let clock = Date.now();
  const a = await testEnv({ KV_PATH: path }, { now: () => clock });
  const b = await testEnv({ KV_PATH: path }, { now: () => clock });
  try {
    const ws = await makeWorkspace(a.deps);
    const form = await makeForm(a.deps, ws, {
      ...DRAFT_FORM,
      drafts: { enabled: true, ttl_days: 1 },
    });
    await draftsOf(a, form, 40);
    clock += DAY + 1;
    const [ra, rb] = await Promise.all([sweepDrafts(a.deps), sweepDrafts(b.deps)]);
    assert.equal(ra.removed + rb.removed, 40);
    assert.equal(await left(a, keys.drafts(form.id)), 0);
    assert.equal(await left(a, keys.draftsDue()), 0);
    assert.equal(await left(a, ["drafts_by_email"]), 0);
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("drafts expiry - never past the form's retention, even one set later", async () => {
  let clock = Date.now();
  const env = await testEnv({}, { now: () => clock });
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, { ...DRAFT_FORM, retention_days: 2 });
    const first = await startDraft(env.deps, form, { data: { email: "ada@example.com" } });
    assert.equal(Date.parse(first.expires_at), clock + 2 * DAY, "retention shorter than ttl");
    const later = await makeForm(env.deps, ws, DRAFT_FORM);
    await draftsOf(env, later, 2);
    clock += 3 * DAY;
    const shorter = await updateForm(env.deps, later.id, { ...DRAFT_FORM, retention_days: 1 });
    await retainForm(env.deps, shorter.id);
    assert.equal(await left(env, keys.drafts(later.id)), 0);
    assert.equal(await left(env, ["drafts_by_email"]), 1, "only the first form's draft is left");
  } finally {
    env.close();
  }
});
