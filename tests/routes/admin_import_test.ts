/**
 * The admin's import page: upload a sample, see the mapping, the first rows and the bad
 * lines, import, see the counts; the same upload again imports nothing; viewers cannot
 * import; a file that is not a usable CSV is a 400 page, never a 500; the audit log says
 * who imported.
 */
import assert from "node:assert/strict";
import { createUser } from "@/lib/admin/users.ts";
import { listAudit } from "@/lib/privacy/audit.ts";
import { makeForm, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { page, PASSWORD, post, signIn } from "@/tests/admin_support.ts";
import { recordsOf } from "@/tests/recount.ts";
import { IMPORT_FORM, SAMPLES } from "@/tests/lib/imports/_support.ts";

const SAME_ORIGIN = { origin: "http://localhost", "sec-fetch-site": "same-origin" };

Deno.test("admin import - upload, preview the mapping, import, re-import nothing", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    const form = await makeForm(env.deps, ws, IMPORT_FORM);
    await createUser(env.deps, {
      email: "owner@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "owner",
      owner: true,
    });
    await createUser(env.deps, {
      email: "viewer@example.com",
      password: PASSWORD,
      workspaceIds: [ws.id],
      role: "viewer",
    });
    const cookie = await signIn(env, "owner@example.com");
    const path = `/admin/forms/${form.id}/import`;
    const { res, html, csrf } = await page(env, cookie, path);
    assert.equal(res.status, 200);
    assert.match(html, /enctype="multipart\/form-data"/);
    assert.match(html, /Formspree export/);

    const sample = await Deno.readTextFile(`${SAMPLES}formspree.csv`);
    const upload = (text: string, format = "formspree") => {
      const fd = new FormData();
      fd.set("_csrf", csrf);
      fd.set("format", format);
      fd.set("file", new File([text], "formspree.csv", { type: "text/csv" }));
      return env.request(path, { method: "POST", headers: { cookie, ...SAME_ORIGIN }, body: fd });
    };
    const preview = await upload(sample);
    assert.equal(preview.status, 200);
    const ph = await preview.text();
    assert.match(ph, /_date<\/td><td>date \(created_at\)/);
    assert.match(ph, /email<\/td><td>field email/);
    assert.match(ph, /_referrer<\/td><td>metadata referrer/);
    assert.match(ph, /Line 5: '_date' is not a time/);
    assert.match(ph, /3 rows to import from formspree.csv/);
    assert.equal(
      (await recordsOf(env.deps.kv, form.id, "live")).length,
      0,
      "a preview stores nothing",
    );
    const carried = /<textarea name="csv"[^>]*>([\s\S]*?)<\/textarea>/.exec(ph)?.[1] ?? "";
    const text = carried.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    assert.equal(text, sample, "the preview carries the file back unchanged");

    const confirm = (csv: string) =>
      post(env, cookie, path, { _csrf: csrf, step: "import", format: "formspree", csv });
    const done = await confirm(text);
    assert.equal(done.status, 200);
    assert.match(await done.text(), /Imported 3 submissions; skipped 2/);
    assert.equal((await recordsOf(env.deps.kv, form.id, "live")).length, 3);
    assert.match(await (await confirm(text)).text(), /Imported 0 submissions; skipped 5/);
    const audit = await listAudit(env.deps, ws.id, {
      page: 1,
      limit: 10,
      action: "submissions.imported",
    });
    assert.equal(audit.events.length, 1);
    assert.equal(audit.events[0].actor, "user:owner@example.com");

    // Larger than an ordinary admin post (256 KiB): the import page takes it.
    const big = ["created_at,name,email"];
    for (let i = 0; i < 8000; i++) big.push(`2024-01-01T00:00:00Z,Person ${i},p${i}@example.com`);
    const bigPreview = await upload(big.join("\n"), "csv");
    assert.equal(bigPreview.status, 200);
    assert.match(await bigPreview.text(), /8,000 rows to import/);

    // A row dated before 1970 is a bad line, shown and skipped; the others import.
    const oldForm = await makeForm(env.deps, ws, IMPORT_FORM);
    const oldPath = `/admin/forms/${oldForm.id}/import`;
    const old = "created_at,name\n1965-03-01,Old\n2024-01-02T00:00:00Z,New\n";
    const oldPreview = await post(env, cookie, oldPath, { _csrf: csrf, format: "csv", csv: old });
    assert.equal(oldPreview.status, 200);
    assert.match(await oldPreview.text(), /Line 2: 'created_at' is before 1970/);
    const oldDone = await post(env, cookie, oldPath, {
      _csrf: csrf,
      step: "import",
      format: "csv",
      csv: old,
    });
    assert.equal(oldDone.status, 200);
    const oldHtml = await oldDone.text();
    assert.match(oldHtml, /Imported 1 submissions?; skipped 1/);
    assert.match(oldHtml, /Line 2: 'created_at' is before 1970/);
    assert.deepEqual(
      (await recordsOf(env.deps.kv, oldForm.id, "live")).map((s) => s.fields.name),
      ["New"],
    );

    const notCsv = await upload("name,email\nAda,a@example.com\n", "csv");
    assert.equal(notCsv.status, 400);
    assert.match(await notCsv.text(), /No time column/);

    const viewer = await signIn(env, "viewer@example.com");
    const v = await page(env, viewer, path);
    assert.equal(v.res.status, 403);
    const vpost = await post(env, viewer, path, {
      _csrf: v.csrf,
      step: "import",
      format: "formspree",
      csv: text,
    });
    assert.equal(vpost.status, 403);
    await vpost.body?.cancel();
  } finally {
    env.close();
  }
});
