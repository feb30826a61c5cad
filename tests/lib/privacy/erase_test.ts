import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import ipaddr from "ipaddr.js";
import { keys } from "@/lib/kv/keys.ts";
import { emailDigest, emailDigestsOf, MAX_EMAIL_ENTRIES } from "@/lib/privacy/email_index.ts";
import { erasePreview } from "@/lib/privacy/export.ts";
import { requirePrivacyJob, runErase, startErase } from "@/lib/privacy/erase.ts";
import { privateWho, storedIp, storedSignals } from "@/lib/privacy/ip.ts";
import { updateForm } from "@/lib/forms/forms.ts";
import type { Form, Submission } from "@/lib/schemas.ts";
import { deleteSubmissions } from "@/lib/submissions/delete.ts";
import { setSubmissionStatus } from "@/lib/submissions/status.ts";
import {
  CONTACT_FORM,
  makeForm,
  makeKey,
  makeWorkspace,
  postJson,
  type TestEnv,
  testEnv,
} from "@/tests/helpers.ts";
import { assertCountersExact, recordsOf } from "@/tests/recount.ts";
import { listSubmissions, submissionListQuerySchema } from "@/lib/submissions/query.ts";

const LIMITS = JSON.stringify({ submit: 100_000, workspace: 100_000 });

async function submit(
  env: TestEnv,
  form: Form,
  data: Record<string, unknown>,
  opts: { key?: string; ip?: string; ua?: string } = {},
): Promise<string> {
  const headers: Record<string, string> = {};
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.ua) headers["user-agent"] = opts.ua;
  const res = await postJson(env, `/api/v1/submit/p/${form.id}`, { data }, headers, opts.ip);
  const body = await res.json();
  assert.equal(res.status, 201, JSON.stringify(body));
  return body.submission_id;
}

async function indexEntries(env: TestEnv, wsId: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of env.deps.kv.list({ prefix: ["submissions_by_email", wsId] })) {
    out.push(String(e.key[5]));
  }
  return out.sort();
}

Deno.test("privacy ip - storedIp truncates IPv4 to /24 and IPv6 to /48", () => {
  assert.equal(storedIp("truncated", "203.0.113.77"), "203.0.113.0");
  assert.equal(storedIp("truncated", "2001:db8:abcd:12:1::5"), "2001:db8:abcd::");
  assert.equal(storedIp("truncated", "::ffff:198.51.100.9"), "198.51.100.0");
  assert.equal(storedIp("truncated", "not an ip"), undefined);
  // Plain dotted quads take a short path; other IPv4 spellings still go through ipaddr.
  assert.equal(storedIp("truncated", "0.0.0.0"), "0.0.0.0");
  assert.equal(storedIp("truncated", "255.255.255.255"), "255.255.255.0");
  assert.equal(storedIp("truncated", "256.1.1.1"), undefined);
  assert.equal(storedIp("truncated", "010.1.1.1"), "8.1.1.0", "a leading zero is octal");
  for (const ip of ["192.0.2.1", "10.20.30.40", "0.1.2.3", "1.2.3.255", "0x7f.0.0.1"]) {
    const viaIpaddr = ipaddr.parse(ip).toByteArray().slice(0, 3).concat(0).join(".");
    assert.equal(storedIp("truncated", ip), viaIpaddr, ip);
  }
  assert.equal(storedIp("full", "203.0.113.77"), "203.0.113.77");
  assert.equal(storedIp("none", "203.0.113.77"), undefined);
  const secret = new TextEncoder().encode("k");
  assert.equal(privateWho(secret, ""), "");
  assert.notEqual(privateWho(secret, "ip:1.2.3.4"), privateWho(secret, "ip:1.2.3.5"));
  assert.ok(!privateWho(secret, "ip:1.2.3.4").includes("1.2.3.4"));
});

Deno.test("privacy ip - stored signals follow the form; scoring still sees bursts", async () => {
  const env = await testEnv({ RATE_LIMITS: LIMITS });
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const def = await makeForm(env.deps, ws);
    assert.equal(def.store_ip, "truncated");
    assert.equal(def.store_user_agent, true);
    const none = await makeForm(env.deps, ws, {
      ...CONTACT_FORM,
      store_ip: "none",
      store_user_agent: false,
    });
    const full = await makeForm(env.deps, ws, { ...CONTACT_FORM, store_ip: "full" });
    const read = async (f: Form, id: string) => (await readSubmission(env.deps.kv, f.id, id))!;
    const ua = "Mozilla/5.0 test";
    const a = await read(
      def,
      await submit(env, def, { name: "A", email: "a@x.io" }, { ip: "203.0.113.77", ua }),
    );
    assert.equal(a.signals.ip, "203.0.113.0");
    assert.equal(a.signals.user_agent, ua);
    const b = await read(
      none,
      await submit(env, none, { name: "B", email: "b@x.io" }, { ip: "203.0.113.77", ua }),
    );
    assert.equal(b.signals.ip, undefined);
    assert.equal(b.signals.user_agent, undefined);
    // The user agent was there when it was scored: no "no_user_agent" reason.
    assert.ok(!(b.spam?.reasons ?? []).includes("no_user_agent"), JSON.stringify(b.spam));
    const c = await read(
      full,
      await submit(env, full, { name: "C", email: "c@x.io" }, { ip: "2001:db8::9", ua }),
    );
    assert.equal(c.signals.ip, "2001:db8::9");
    // No address in the number index's marks.
    for await (
      const e of env.deps.kv.list<{ who: string }>({ prefix: ["submissions_by_number"] })
    ) {
      assert.ok(!/203\.0\.113|2001:db8/.test(e.value.who), e.value.who);
    }
    // Bursts from one address are still seen (the rate signal counts per identity).
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      ids.push(
        await submit(env, none, { name: `Burst ${i}`, email: `burst${i}@x.io` }, {
          ip: "198.51.100.5",
          ua,
        }),
      );
    }
    const last = await read(none, ids.at(-1)!);
    assert.ok(last.spam && last.spam.score > 0, "a burst from one address must score");
    assert.equal(last.signals.ip, undefined);
    assert.equal(storedSignals(none, { ip: "1.2.3.4", user_agent: "x" }).ip, undefined);
  } finally {
    env.close();
  }
});

Deno.test("privacy erase - removes every match across forms and modes of the key, nothing else", async () => {
  const env = await testEnv({ RATE_LIMITS: LIMITS });
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const other = await makeWorkspace(env.deps, "pro");
    const f1 = await makeForm(env.deps, ws);
    const f2 = await makeForm(env.deps, ws, {
      name: "Two emails",
      fields: [
        { name: "email", type: "email" },
        { name: "backup", type: "email" },
        { name: "note", type: "text" },
      ],
    });
    const f3 = await makeForm(env.deps, other);
    const testKey = await makeKey(env.deps, ws, { type: "test", scopes: ["submit"] });
    const ada = ["ada@example.com", "ADA@Example.com", "Ada@example.COM"];
    const gone1 = [
      await submit(env, f1, { name: "Ada", email: ada[0] }),
      await submit(env, f1, { name: "Ada again", email: ada[1] }),
    ];
    const gone2 = [
      await submit(env, f2, { email: "x@example.com", backup: ada[2] }),
      await submit(env, f2, { email: ada[0], backup: ada[0] }),
    ];
    const kept = [
      await submit(env, f1, { name: "Grace", email: "grace@example.com" }),
      // The address in a text field is not an email field: not matched.
      await submit(env, f2, { email: "bob@example.com", note: ada[0] }),
    ];
    const otherWs = await submit(env, f3, { name: "Ada", email: ada[0] });
    const testMode = await submit(env, f1, { name: "Ada test", email: ada[0] }, { key: testKey });
    // Index entries survive the status change and the deletion of someone else's submission.
    await setSubmissionStatus(env.deps, f1.id, gone1[0], "spam");
    assert.deepEqual(await deleteSubmissions(env.deps, f1, "live", [kept[0]]), {
      deleted: 1,
      not_found: [],
    });
    const graceIdx = await env.deps.kv.list({
      prefix: keys.submissionsByEmail(
        ws.id,
        emailDigest(env.deps.secret, "grace@example.com"),
        "live",
      ),
    }).next();
    assert.ok(graceIdx.done, "the deleted submission's index entry went with it");

    const preview = await erasePreview(env.deps, ws.id, ["live"], "ada@example.com");
    assert.deepEqual(preview, {
      total: 4,
      forms: { [f1.id]: { name: f1.name, count: 2 }, [f2.id]: { name: f2.name, count: 2 } },
      copies: { events: 0, outbox_mails: 0, email_log_entries: 0, webhook_deliveries: 0 },
    });
    const job = await startErase(env.deps, {
      workspaceId: ws.id,
      modes: ["live"],
      email: "  ada@EXAMPLE.com ",
      actor: "user:owner@example.com",
    });
    assert.equal(job.status, "running");
    assert.ok(!JSON.stringify(job).includes("ada@"), "the job keeps no address");
    await runErase(env.deps, job.id);
    const done = await requirePrivacyJob(env.deps, ws.id, ["live"], job.id);
    assert.equal(done.status, "done");
    assert.equal(done.deleted, 4);
    assert.deepEqual(done.forms, { [f1.id]: 2, [f2.id]: 2 });
    const live1 = (await recordsOf(env.deps.kv, f1.id, "live")).map((s) => s.id);
    const live2 = (await recordsOf(env.deps.kv, f2.id, "live")).map((s) => s.id);
    assert.deepEqual(live1, []);
    assert.deepEqual(live2, [kept[1]]);
    // Search no longer finds the person's submissions: by address, nor by its words; only
    // the kept one whose text field mentions the address.
    for (const [f, want] of [[f1, []], [f2, [kept[1]]]] as const) {
      for (const search of ["ada@example.com", "ada"]) {
        const q = submissionListQuerySchema.parse({ search });
        const r = await listSubmissions(env.deps, f, "live", q);
        assert.deepEqual(r.submissions.map((s) => s.id), want, `${f.id} ${search}`);
        assert.equal(r.pagination.total, want.length);
      }
    }
    assert.equal((await recordsOf(env.deps.kv, f1.id, "test"))[0].id, testMode);
    assert.equal((await recordsOf(env.deps.kv, f3.id, "live"))[0].id, otherWs);
    for (const f of [f1, f2]) {
      await assertCountersExact(env.deps.kv, f.id, "live");
      await assertCountersExact(env.deps.kv, f.id, "test");
    }
    for (const id of [...gone1, ...gone2]) {
      assert.ok(!(await indexEntries(env, ws.id)).includes(id));
    }
    assert.deepEqual(await indexEntries(env, ws.id), [kept[1], testMode].sort());
    // Running it again (a redelivered message) changes nothing.
    await runErase(env.deps, job.id);
    assert.equal((await requirePrivacyJob(env.deps, ws.id, ["live"], job.id)).deleted, 4);
    await assert.rejects(
      () => requirePrivacyJob(env.deps, other.id, ["live"], job.id),
      /not found/i,
    );
  } finally {
    env.close();
  }
});

Deno.test("privacy settings - create takes the workspace default; update keeps omitted ones", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    await env.deps.kv.set(keys.workspace(ws.id), { ...ws, default_retention_days: 90 });
    const f = await makeForm(env.deps, ws);
    assert.equal(f.retention_days, 90);
    const forever = await makeForm(env.deps, ws, { ...CONTACT_FORM, retention_days: null });
    assert.equal(forever.retention_days, null);
    const changed = await updateForm(env.deps, f.id, { ...CONTACT_FORM, store_ip: "none" });
    assert.equal(changed.retention_days, 90);
    assert.equal(changed.store_ip, "none");
    await assert.rejects(
      () => updateForm(env.deps, f.id, { ...CONTACT_FORM, retention_days: 0 }),
      /retention_days/,
    );
  } finally {
    env.close();
  }
});

Deno.test("privacy email index - digests are normalised, distinct and capped", () => {
  const secret = new TextEncoder().encode("s");
  const fields = Array.from({ length: 12 }, (_, i) => ({
    id: `f${i}`,
    name: `e${i}`,
    type: "email" as const,
    required: false,
  }));
  const form = { fields } as unknown as Form;
  const values: Record<string, unknown> = {};
  fields.forEach((f, i) => values[f.name] = `p${i}@x.io`);
  values.e1 = " P0@X.io";
  const sub = { fields: values } as unknown as Submission;
  const digests = emailDigestsOf(secret, form, sub);
  assert.equal(digests.length, MAX_EMAIL_ENTRIES);
  assert.equal(new Set(digests).size, digests.length);
  assert.equal(digests[0], emailDigest(secret, "p0@x.io"));
  assert.notEqual(
    emailDigest(secret, "a@x.io"),
    emailDigest(new TextEncoder().encode("t"), "a@x.io"),
  );
});
