import assert from "node:assert/strict";
import { keys } from "@/lib/kv/keys.ts";
import type { Status, Submission } from "@/lib/schemas.ts";
import { deleteSubmissions } from "@/lib/submissions/delete.ts";
import {
  listSubmissions,
  rangeStartDay,
  submissionListQuerySchema,
  submissionView,
} from "@/lib/submissions/query.ts";
import { seedSubmissions } from "@/bench/seed.ts";
import { makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { assertCountersExact, recordsOf } from "@/tests/recount.ts";
import { holdsTerms } from "@/lib/search/entries.ts";
import { searchTerms } from "@/lib/search/terms.ts";

const NOW = Date.parse("2026-06-15T12:00:00Z");
const HOUR = 3_600_000;

function query(over: Record<string, string>) {
  return submissionListQuerySchema.parse(over);
}

Deno.test("submission_query - paging across blocks equals a full recount", async (t) => {
  const env = await testEnv({}, { now: () => NOW });
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws);
    const n = 2_500;
    // One an hour, so the 7d/30d/90d ranges cut through the middle of the data.
    const status = (i: number): Status =>
      i % 7 === 0 ? "spam" : i % 11 === 0 ? "suspicious" : "completed";
    const ids = await seedSubmissions(env.deps, form, n, {
      status,
      createdAt: (i) => NOW - (n - i) * HOUR,
    });
    await seedSubmissions(env.deps, form, 30, { mode: "test" });
    // Deletes scattered everywhere, plus most of block 1, so blocks have gaps.
    const doomed = ids.filter((_, i) => i % 13 === 5 || (i >= 1_100 && i < 1_900));
    for (let i = 0; i < doomed.length; i += 500) {
      const r = await deleteSubmissions(env.deps, form, "live", doomed.slice(i, i + 500));
      assert.equal(r.deleted, Math.min(500, doomed.length - i));
    }
    await assertCountersExact(env.deps.kv, form.id, "live");
    await assertCountersExact(env.deps.kv, form.id, "test");
    const all = await recordsOf(env.deps.kv, form.id, "live");
    assert.equal(all.length, n - doomed.length);

    await t.step("every page of every status and range is the recount's slice", async () => {
      let pages = 0;
      for (const st of [undefined, "completed", "spam", "suspicious"] as const) {
        for (const range of ["all", "7d", "30d", "90d"] as const) {
          const from = rangeStartDay(range, NOW);
          const expected = all.filter((s) =>
            (!st || s.status === st) && (!from || s.created_at >= from)
          );
          const limit = st === undefined && range === "all" ? 37 : 100;
          const lastPage = Math.ceil(expected.length / limit) + 1;
          for (let page = 1; page <= lastPage; page++) {
            const q = query({
              page: String(page),
              limit: String(limit),
              range,
              ...(st ? { status: st } : {}),
            });
            const r = await listSubmissions(env.deps, form, "live", q);
            const slice = expected.slice((page - 1) * limit, page * limit);
            assert.deepEqual(
              r.submissions.map((s) => s.id),
              slice.map((s) => s.id),
              `${st} ${range} p${page}`,
            );
            assert.equal(r.pagination.total, expected.length);
            assert.equal(r.pagination.total_pages, Math.ceil(expected.length / limit));
            assert.equal(r.pagination.has_more, page * limit < expected.length);
            pages++;
          }
        }
      }
      assert.ok(pages > 100, `only ${pages} pages compared`);
    });

    await t.step("gap-free blocks (entered by number) page like the recount", async () => {
      const dense = await makeForm(env.deps, ws);
      await seedSubmissions(env.deps, dense, 2_345, {
        status: (i) => i < 1_500 ? "completed" : "spam",
      });
      const records = await recordsOf(env.deps.kv, dense.id, "live");
      for (const st of [undefined, "completed", "spam"] as const) {
        const expected = records.filter((s) => !st || s.status === st);
        for (const limit of [100, 37]) {
          for (let page = 1; page <= Math.ceil(expected.length / limit) + 1; page++) {
            const q = query({
              page: String(page),
              limit: String(limit),
              ...(st ? { status: st } : {}),
            });
            const r = await listSubmissions(env.deps, dense, "live", q);
            const slice = expected.slice((page - 1) * limit, page * limit);
            assert.deepEqual(
              r.submissions.map((s) => s.id),
              slice.map((s) => s.id),
              `${st} p${page}`,
            );
          }
        }
      }
    });

    await t.step("a test-mode list sees only the test submissions", async () => {
      const r = await listSubmissions(env.deps, form, "test", query({ limit: "100" }));
      assert.equal(r.pagination.total, 30);
      assert.equal(r.submissions.length, 30);
      assert.ok(r.submissions.every((s) => !ids.includes(s.id)));
    });

    await t.step("search matches words' starts in field values and ids", async () => {
      // ASCII data: a word is a run of letters and digits.
      const expected = all.filter((s) =>
        Object.values(s.fields).join(" ").toLowerCase().split(/[^a-z0-9]+/)
          .some((w) => w.startsWith("person12"))
      );
      assert.ok(expected.length > 5);
      const r = await listSubmissions(
        env.deps,
        form,
        "live",
        query({ search: "PERSON12", limit: "100" }),
      );
      assert.deepEqual(r.submissions.map((s) => s.id), expected.slice(0, 100).map((s) => s.id));
      assert.equal(r.pagination.total, expected.length);
      const byId = await listSubmissions(
        env.deps,
        form,
        "live",
        query({ search: all[42].id.toUpperCase() }),
      );
      assert.deepEqual(byId.submissions.map((s) => s.id), [all[42].id]);
      const spam = await listSubmissions(
        env.deps,
        form,
        "live",
        query({ search: "person", status: "spam", range: "7d" }),
      );
      const from = rangeStartDay("7d", NOW)!;
      const spamIn7d = all.filter((s) => s.status === "spam" && s.created_at >= from);
      assert.ok(spamIn7d.length > 5);
      assert.equal(spam.pagination.total, spamIn7d.length);
      assert.deepEqual(spam.submissions.map((s) => s.id), spamIn7d.slice(0, 20).map((s) => s.id));
    });
  } finally {
    env.close();
  }
});

Deno.test("submission_query - search finds the oldest and counts every match", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "pro");
    const form = await makeForm(env.deps, ws);
    const ids = await seedSubmissions(env.deps, form, 6_050);
    const r = await listSubmissions(
      env.deps,
      form,
      "live",
      query({ search: "person", limit: "10" }),
    );
    assert.equal(r.pagination.total, 6_050);
    assert.deepEqual(r.submissions.map((s) => s.id), ids.slice(-10).reverse());
    // The oldest is found by its address, whole or by its start.
    for (const q of ["person7@example.com", "PERSON7@", "person7@exam"]) {
      const old = await listSubmissions(env.deps, form, "live", query({ search: q }));
      assert.deepEqual(old.submissions.map((s) => s.id), [ids[7]], q);
      assert.equal(old.pagination.total, 1);
    }
    const last = await listSubmissions(
      env.deps,
      form,
      "live",
      query({ search: "person", limit: "100", page: "61" }),
    );
    assert.deepEqual(last.submissions.map((s) => s.id), ids.slice(0, 50).reverse());
  } finally {
    env.close();
  }
});

Deno.test("submission_query - the public view hides internal fields", () => {
  const s: Submission = {
    id: "sub_01jabcdefghjkmnpqrstvwxyz0",
    form_id: "fAAAA",
    workspace_id: "ws_x",
    mode: "test",
    number: 7,
    fields: {
      cv: { path: "p/1", originalFilename: "cv.pdf", mimeType: "application/pdf", sizeBytes: 3 },
    },
    metadata: { a: 1 },
    status: "completed",
    created_at: "2026-01-01T00:00:00.000Z",
    files: ["p/1"],
    signals: { ip: "203.0.113.9" },
    spam: { score: 0.1, reasons: [], scored_at: "2026-01-01T00:00:00.000Z" },
  };
  const v = submissionView(s);
  assert.deepEqual(Object.keys(v).sort(), [
    "created_at",
    "fields",
    "files",
    "form_id",
    "id",
    "metadata",
    "status",
    "submission_number",
  ]);
  assert.equal(v.submission_number, 7);
  assert.deepEqual(v.files, [{
    field: "cv",
    path: "p/1",
    originalFilename: "cv.pdf",
    mimeType: "application/pdf",
    sizeBytes: 3,
  }]);
  assert.ok(!JSON.stringify(v).includes("203.0.113.9"));
  // A file's name is a value; the client's address is not.
  assert.equal(holdsTerms(s, searchTerms("cv.pdf")), true);
  assert.equal(holdsTerms(s, searchTerms("203.0.113")), false);
  assert.ok(keys.submission(s.form_id, s.id));
});

Deno.test("submission_query - ranges are whole UTC days including today", () => {
  const now = Date.parse("2026-03-10T23:59:59Z");
  assert.equal(rangeStartDay("all", now), null);
  assert.equal(rangeStartDay("7d", now), "2026-03-04");
  assert.equal(rangeStartDay("30d", now), "2026-02-09");
  assert.equal(rangeStartDay("90d", now), "2025-12-11");
});
