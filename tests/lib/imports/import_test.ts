/**
 * Importing the samples of each format: counts, original times kept (numbers in time
 * order), fields mapped by name and the rest in metadata, spam rows kept as spam, the
 * sender's address stored per the form's policy, bad rows reported by line and skipped,
 * a re-run importing nothing, and every counter and index equal to a recount.
 */
import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import { emailDigest } from "@/lib/privacy/email_index.ts";
import { importFile } from "@/lib/imports/mod.ts";
import type { ImportFormat } from "@/lib/imports/formats.ts";
import type { Form } from "@/lib/schemas.ts";
import { makeForm, makeWorkspace, type TestEnv, testEnv } from "@/tests/helpers.ts";
import { assertCountersExact, recordsOf } from "@/tests/recount.ts";
import { IMPORT_FORM, SAMPLES } from "./_support.ts";
import { listSubmissions, submissionListQuerySchema } from "@/lib/submissions/query.ts";

async function run(env: TestEnv, form: Form, format: ImportFormat) {
  const text = await Deno.readTextFile(`${SAMPLES}${format === "csv" ? "generic" : format}.csv`);
  return await importFile(env.deps, form, { format, text, actor: "cli" });
}

async function setup() {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps, "pro");
  const form = await makeForm(env.deps, ws, IMPORT_FORM);
  return { env, ws, form };
}

Deno.test("import - formspree sample", async () => {
  const { env, form } = await setup();
  try {
    const r = await run(env, form, "formspree");
    assert.equal(r.imported, 3);
    assert.equal(r.skipped, 2);
    assert.deepEqual(r.bad_rows.map((b) => b.line), [5, 6]);
    assert.match(r.bad_rows[0].error, /_date.*not a time/);
    assert.match(r.bad_rows[1].error, /budget.*not a number/);
    const subs = (await recordsOf(env.deps.kv, form.id, "live")).reverse();
    // Oldest first by number; Formspree's zone-less times are UTC.
    assert.deepEqual(subs.map((s) => [s.number, s.created_at]), [
      [1, "2024-02-28T23:59:59.000Z"],
      [2, "2024-03-01T09:15:00.000Z"],
      [3, "2024-03-02T10:00:00.000Z"],
    ]);
    assert.deepEqual(subs[1].fields, {
      email: "ada@example.com",
      name: "Ada Lovelace",
      message: "Hello, I'd like a quote.",
      budget: 1200,
    });
    assert.equal(subs[2].fields.message, "Two lines\nin one cell");
    assert.equal(subs[1].metadata.referrer, "https://example.com/contact");
    assert.equal(subs[1].metadata.imported_from, "formspree");
    assert.ok(subs.every((s) => s.status === "completed" && s.scored_at));
    await assertCountersExact(env.deps.kv, form.id, "live");
    // The email index finds an imported submission (privacy erase and export by person).
    const d = emailDigest(env.deps.secret, "ADA@example.com ");
    const hits = [];
    for await (
      const e of env.deps.kv.list({ prefix: keys.submissionsByEmail(form.workspace_id, d, "live") })
    ) {
      hits.push(e.key.at(-1));
    }
    assert.deepEqual(hits, [subs[1].id]);
    // Search finds imported rows by their words and addresses, newest number first.
    for (
      const [search, want] of [["ada@example.com", [subs[1].id]], ["lovelace quote", [subs[1].id]]]
    ) {
      const q = submissionListQuerySchema.parse({ search });
      const found = await listSubmissions(env.deps, form, "live", q);
      assert.deepEqual(found.submissions.map((s) => s.id), want, String(search));
      assert.equal(found.pagination.total, want.length);
    }

    const again = await run(env, form, "formspree");
    assert.deepEqual([again.imported, again.skipped], [0, 5]);
    assert.equal((await recordsOf(env.deps.kv, form.id, "live")).length, 3);
    await assertCountersExact(env.deps.kv, form.id, "live");
  } finally {
    env.close();
  }
});

Deno.test("import - basin sample: spam kept as spam, addresses per the form's policy", async () => {
  const { env, form } = await setup();
  try {
    const r = await run(env, form, "basin");
    assert.deepEqual([r.imported, r.skipped], [2, 1]);
    assert.deepEqual(r.bad_rows.map((b) => b.line), [4]);
    assert.match(r.bad_rows[0].error, /subscribe/);
    const [spam, ada] = await recordsOf(env.deps.kv, form.id, "live");
    assert.equal(ada.fields.subscribe, true);
    assert.equal(ada.metadata.source_id, "101");
    assert.equal(ada.created_at, "2024-01-10T12:00:00.000Z");
    assert.notEqual(ada.signals.ip, "203.0.113.9", "stored truncated, the form's default");
    assert.equal(ada.signals.user_agent, "Mozilla/5.0 (X11)");
    assert.equal(spam.status, "spam");
    assert.equal(spam.fields.subscribe, false);
    await assertCountersExact(env.deps.kv, form.id, "live");
  } finally {
    env.close();
  }
});

Deno.test("import - netlify sample: plumbing dropped, line numbers past an empty line", async () => {
  const { env, form } = await setup();
  try {
    const r = await run(env, form, "netlify");
    assert.deepEqual([r.imported, r.skipped], [2, 1]);
    assert.deepEqual(r.bad_rows, [{ line: 5, error: "6 cells where the header has 11" }]);
    const [grace, ada] = await recordsOf(env.deps.kv, form.id, "live");
    assert.deepEqual(ada.fields, {
      name: "Ada",
      email: "ada@example.com",
      message: "Hello from Netlify",
    });
    assert.equal(ada.metadata["form-name"], undefined);
    assert.equal(ada.metadata.source_number, "1");
    assert.equal(ada.metadata.referrer, "https://site.netlify.app/contact");
    assert.equal(grace.created_at, "2023-12-02T08:00:00.000Z");
    assert.deepEqual(r.mapping.dropped.sort(), ["bot-field", "form-name"]);
  } finally {
    env.close();
  }
});

Deno.test("import - generic CSV: identical rows both kept, status, guards undone", async () => {
  const { env, form } = await setup();
  try {
    const r = await run(env, form, "csv");
    assert.deepEqual([r.imported, r.skipped], [3, 2]);
    assert.deepEqual(r.bad_rows.map((b) => b.line), [5, 6]);
    assert.match(r.bad_rows[1].error, /future/);
    const [grace, ...adas] = await recordsOf(env.deps.kv, form.id, "live");
    assert.equal(adas.length, 2);
    assert.equal(grace.status, "spam");
    assert.equal(grace.created_at, "2024-05-02T08:00:00.000Z");
    assert.equal(grace.fields.message, "=SUM(A1)");
    assert.equal(adas[0].metadata.source, "newsletter");
    assert.equal(adas[0].fields.budget, 10.5);
    assert.deepEqual(r.mapping.fields.map((f) => f.field), ["name", "email", "message", "budget"]);
    await assertCountersExact(env.deps.kv, form.id, "live");
    assert.deepEqual((await run(env, form, "csv")).imported, 0);
    // Imports are history: no monthly quota, no event feed entries.
    const month = new Date().toISOString().slice(0, 7);
    const quota = await env.deps.kv.get(keys.monthlySubmissions(form.workspace_id, month));
    assert.equal(quota.value, null);
    const feed = [];
    for await (
      const e of env.deps.kv.list({ prefix: keys.feedEvents(form.workspace_id, "live") })
    ) {
      feed.push(e);
    }
    assert.equal(feed.length, 0);
  } finally {
    env.close();
  }
});

Deno.test("import - file-level problems are 400s", async () => {
  const { env, form } = await setup();
  try {
    const bad = [
      ["", /empty/],
      ["name,email\nAda,a@example.com\n", /No time column/],
      ['created_at,name\n2024-01-01,"unclosed\n', /not valid CSV/],
      ["created_at,name,NAME\n2024-01-01,a,b\n", /twice/],
    ] as const;
    for (const [text, re] of bad) {
      await assert.rejects(
        importFile(env.deps, form, { format: "csv", text, actor: "cli" }),
        (err: Error & { status?: number }) => err.status === 400 && re.test(err.message),
      );
    }
  } finally {
    env.close();
  }
});

Deno.test("import - two imports of one file at once store each row once", async () => {
  const { env, form } = await setup();
  try {
    const lines = ["created_at,name,email"];
    for (let i = 0; i < 300; i++) {
      lines.push(
        `2024-01-01T00:${String(Math.floor(i / 60)).padStart(2, "0")}:${
          String(i % 60).padStart(2, "0")
        }Z,P${i},p${i}@example.com`,
      );
    }
    const text = lines.join("\n");
    const [a, b] = await Promise.all([
      importFile(env.deps, form, { format: "csv", text, actor: "cli" }),
      importFile(env.deps, form, { format: "csv", text, actor: "cli" }),
    ]);
    assert.equal(a.imported + b.imported, 300);
    assert.equal(a.skipped + b.skipped, 300);
    const subs = await recordsOf(env.deps.kv, form.id, "live");
    assert.equal(subs.length, 300);
    assert.equal(new Set(subs.map((s) => s.number)).size, 300);
    await assertCountersExact(env.deps.kv, form.id, "live");
  } finally {
    env.close();
  }
});

Deno.test("import - a row dated before 1970 is skipped with its reason; the rest import", async () => {
  const { env, form } = await setup();
  try {
    const text = [
      "created_at,name,email",
      "2024-05-01T10:00:00Z,Ada,ada@example.com",
      "1969-12-31T23:59:59Z,Old,old@example.com",
      "1901-01-01,Older,older@example.com",
      "1970-01-01T00:00:00Z,Epoch,epoch@example.com",
      "2024-05-02T10:00:00Z,Grace,grace@example.com",
    ].join("\n");
    const r = await importFile(env.deps, form, { format: "csv", text, actor: "cli" });
    assert.deepEqual([r.imported, r.skipped], [3, 2]);
    assert.deepEqual(r.bad_rows, [
      { line: 3, error: "'created_at' is before 1970: '1969-12-31T23:59:59Z'" },
      { line: 4, error: "'created_at' is before 1970: '1901-01-01'" },
    ]);
    const subs = (await recordsOf(env.deps.kv, form.id, "live")).reverse();
    assert.deepEqual(subs.map((s) => [s.number, s.fields.name]), [
      [1, "Epoch"],
      [2, "Ada"],
      [3, "Grace"],
    ]);
    await assertCountersExact(env.deps.kv, form.id, "live");
  } finally {
    env.close();
  }
});
